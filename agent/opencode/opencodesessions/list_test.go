package opencodesessions_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

func exec(t *testing.T, path string, qs ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A warm list reads nothing of the database while it, its -wal and its
// -shm are as they were: the rows come from the cache. The database is
// overwritten in place with bytes that are no database, its size and
// mtime kept, to show it is not read; a change to any of the three is
// read.
func TestWarmListReadsNoDatabase(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	cache := filepath.Join(t.TempDir(), "catalog-opencode.gob")
	r := func() agent.Reader {
		return opencodesessions.New(data, "").Sessions(agent.ReaderConfig{CachePath: cache})
	}
	cold, _ := list(t, r(), false)
	if len(cold) != 2 {
		t.Fatalf("cold: %d sessions", len(cold))
	}
	good, _ := os.ReadFile(path)
	junk := []byte(strings.Repeat("x", len(good)))
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, old, old)
	warm, diags := list(t, r(), false)
	if len(diags) != 0 || len(warm) != 2 {
		t.Fatalf("warm: %d sessions, %v", len(warm), diags)
	}
	w, c := warm[sessiontest.SampleOpenCode], cold[sessiontest.SampleOpenCode]
	if w.Title != c.Title || *w.Counts != *c.Counts || w.Context.Tokens != c.Context.Tokens || !w.LastHumanActivity.Equal(*c.LastHumanActivity) {
		t.Errorf("warm %+v\ncold %+v", w, c)
	}
	// A -shm file appearing (OpenCode started) is a change: read, the
	// junk is a diagnostic.
	sessiontest.WriteFile(t, path+"-shm", nil)
	if _, diags := list(t, r(), false); len(diags) != 1 || diags[0].Path != path {
		t.Errorf("with -shm: %v", diags)
	}
	os.Remove(path + "-shm")
	// The database written (its mtime now): a new session is listed.
	os.WriteFile(path, good, 0o644)
	exec(t, path, `UPDATE session SET title = 'renamed' WHERE id = '`+sessiontest.SampleOpenCode+`'`)
	if m, _ := list(t, r(), false); m[sessiontest.SampleOpenCode].Title != "renamed" {
		t.Errorf("after a write: %+v", m[sessiontest.SampleOpenCode])
	}
}

// The context window is OpenCode's own for the session's model (its
// config's limit.context for provider fake, model fake-model), else
// tether's; a session whose last assistant message with output is a
// compaction's summary has no context in use yet.
func TestListWindowAndCompaction(t *testing.T) {
	root := t.TempDir()
	data, cfg := filepath.Join(root, "data"), filepath.Join(root, "config")
	path := sessiontest.OpenCodeDB(t, data)
	sessiontest.WriteFile(t, filepath.Join(cfg, "opencode.jsonc"), []byte(`{
		// as produce.sh configures the fake provider, its window halved
		"provider": {"fake": {"models": {"fake-model": {"limit": {"context": 100000, "output": 8192}}}}},
	}`))
	a := opencodesessions.New(data, "")
	a.Limits = &opencode.Limits{ConfigDir: cfg}
	m, _ := list(t, a.Sessions(agent.ReaderConfig{}), false)
	c := m[sessiontest.SampleOpenCode].Context
	if c == nil || c.Window != 100000 || !c.WindowKnown || c.Percent != 1.2 {
		t.Errorf("context: %+v", c)
	}
	full, err := a.Sessions(agent.ReaderConfig{}).Get(context.Background(), m[sessiontest.SampleOpenCode])
	if err != nil || full.Context == nil || full.Context.Window != 100000 {
		t.Errorf("show's context: %+v %v", full.Context, err)
	}
	// The last turn removed: the summary is the last message with output.
	exec(t, path, `DELETE FROM message WHERE id = 'msg_232f5cba90016K7eq0uGgXMeOh'`)
	m, _ = list(t, a.Sessions(agent.ReaderConfig{}), false)
	if s := m[sessiontest.SampleOpenCode]; s.Context != nil || s.Model != "fake-model" {
		t.Errorf("after a compaction: %+v %q", s.Context, s.Model)
	}
}

// The project's worktree and the workspace's branch: the branch is the
// workspace's; the origin is the worktree's repository's.
func TestListBranchAndOrigin(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	repo := filepath.Join(t.TempDir(), "proj")
	sessiontest.WriteFile(t, filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:example/proj.git\n"))
	exec(t, path,
		`INSERT INTO workspace (id, type, branch, directory, project_id, time_used) VALUES ('wrk_1', 'worktree', 'feature/x', '`+repo+`', '52c7a0560b6a45f58eb85916789a56838abcee8b', 0)`,
		`UPDATE session SET workspace_id = 'wrk_1', directory = '`+repo+`' WHERE id = '`+sessiontest.SampleOpenCode+`'`)
	m, _ := list(t, reader(data), false)
	s := m[sessiontest.SampleOpenCode]
	if s.GitBranch != "feature/x" || s.GitOrigin != "github.com/example/proj" || s.Cwd != repo {
		t.Errorf("branch %q origin %q cwd %q", s.GitBranch, s.GitOrigin, s.Cwd)
	}
	if o := m[sessiontest.SampleOpenCodeOverflow]; o.GitBranch != "" {
		t.Errorf("no workspace, branch %q", o.GitBranch)
	}
}

// Show's evidence from OpenCode's tools (lower-case, camelCase inputs):
// files read and edited, the command's directory, a commit made.
func TestGetToolEvidence(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	const msg = "msg_232ec78490014pQ5RJttnm3JX6"
	part := func(id, data string) string {
		return `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id + `', '` + msg + `', '` +
			sessiontest.SampleOpenCode + `', 1796150700000, 1796150700000, '` + data + `')`
	}
	exec(t, path,
		part("prt_x1", `{"type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"/home/example/proj/notes.txt"},"output":"hello"}}`),
		part("prt_x2", `{"type":"tool","tool":"edit","callID":"c2","state":{"status":"completed","input":{"filePath":"src/main.go","oldString":"a","newString":"b"}}}`),
		part("prt_x3", `{"type":"tool","tool":"bash","callID":"c3","state":{"status":"completed","input":{"command":"git commit -m \"Fix INIT-AB-123\"","description":"commit"},"output":"[main 1a2b3c4d] Fix INIT-AB-123\n 1 file changed"}}`))
	r := reader(data)
	m, _ := list(t, r, false)
	if c := m[sessiontest.SampleOpenCode].Counts; c == nil || c.ToolCalls != 4 {
		t.Errorf("listed tool calls: %+v", c)
	}
	full, err := r.Get(context.Background(), m[sessiontest.SampleOpenCode])
	if err != nil {
		t.Fatal(err)
	}
	ev := full.Evidence
	if full.Counts.ToolCalls != 4 || ev == nil {
		t.Fatalf("counts %+v evidence %+v", full.Counts, ev)
	}
	if !slices.Equal(ev.FilesRead, []string{"/home/example/proj/notes.txt"}) || !slices.Equal(ev.FilesModified, []string{"/home/example/proj/src/main.go"}) {
		t.Errorf("files: %v %v", ev.FilesRead, ev.FilesModified)
	}
	if len(ev.CommitsCreated) != 1 || ev.CommitsCreated[0] != (agent.Commit{SHA: "1a2b3c4d", Branch: "main", Subject: "Fix INIT-AB-123"}) {
		t.Errorf("commits: %+v", ev.CommitsCreated)
	}
	if len(ev.WorkRefs) != 1 || ev.WorkRefs[0].Ref != "INIT-AB-123" {
		t.Errorf("work refs: %+v", ev.WorkRefs)
	}
}

// Search's texts of an OpenCode session: the human prompts (not the
// synthetic continuation), and with all the assistant's text and the
// tool calls; the messages counted as show counts them.
func TestSessionTexts(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	m, _ := list(t, reader(data), false)
	st := agent.SessionTextsOf(agent.OpenCode)
	if st == nil || agent.FormatOf(agent.OpenCode) != nil {
		t.Fatal("OpenCode's session texts not registered, or a line format is")
	}
	texts := func(id string, all bool) ([]agent.Text, int) {
		s := m[id]
		var out []agent.Text
		var mc agent.MessageCount
		if err := st.SessionTexts(context.Background(), &s, all, &mc, func(t agent.Text) { out = append(out, t) }); err != nil {
			t.Fatal(err)
		}
		return out, mc.N
	}
	prompts, n := texts(sessiontest.SampleOpenCode, false)
	if n != 9 || len(prompts) != 3 || prompts[2] != (agent.Text{Kind: agent.TextPrompt, Text: "after compaction\n"}) {
		t.Errorf("prompts (%d messages): %+v", n, prompts)
	}
	all, _ := texts(sessiontest.SampleOpenCode, true)
	var tools, assistant int
	for _, x := range all {
		switch x.Kind {
		case agent.TextTool:
			tools++
			if x.Text != "bash echo hi-from-tool && cat notes.txt" {
				t.Errorf("tool text %q", x.Text)
			}
		case agent.TextAssistant:
			assistant++
		}
	}
	if tools != 1 || assistant != 4 { // the summary is the assistant's text too
		t.Errorf("%d tool texts, %d assistant texts: %+v", tools, assistant, all)
	}
	o, _ := texts(sessiontest.SampleOpenCodeOverflow, false)
	if len(o) != 1 || !strings.HasPrefix(o[0].Text, "ERR_TOO_LONG") {
		t.Errorf("overflow prompts: %+v", o)
	}
}

package codexsessions_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

func checkCodexSample(t *testing.T, s agent.Session) {
	t.Helper()
	if s.Cwd != "/home/example/src/codex-proj" || s.State != agent.StateResumable {
		t.Errorf("cwd %q state %s", s.Cwd, s.State)
	}
	// The context in use is the last request's input_tokens (153, cached
	// ones included), as the hooks store it: agent/codex.TokenCount is the
	// one formula. (The catalog used to show total_tokens, 216.)
	if s.Context == nil || s.Context.Tokens != 153 || s.Context.Window != 258400 || !s.Context.WindowKnown {
		t.Errorf("context %+v", s.Context)
	}
	if s.LastHumanActivity == nil || s.LastHumanActivity.Format(time.RFC3339Nano) != "2026-11-30T11:02:35.236Z" {
		t.Errorf("last human %v", s.LastHumanActivity)
	}
	if s.LastActivity.Format(time.RFC3339Nano) != "2026-11-30T11:02:35.293Z" {
		t.Errorf("last activity %v", s.LastActivity)
	}
	if strings.Join(s.Resume.Argv, " ") != "codex resume "+sessiontest.SampleCodex || s.Resume.Dir != s.Cwd {
		t.Errorf("resume %+v", s.Resume)
	}
}

func TestCodexFromStateDB(t *testing.T) {
	dir, _ := sessiontest.CodexHome(t, true)
	// A lower-numbered DB must be ignored.
	old := sessiontest.NewStateDB(t, filepath.Join(dir, "state_4.sqlite"))
	sessiontest.InsertThread(t, old, map[string]any{"id": "ffffffff-old", "rollout_path": "/nope", "cwd": "/x", "created_at": 1, "updated_at": 1})
	old.Close()
	d, err := sql.Open("sqlite", filepath.Join(dir, "state_5.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	sessiontest.InsertThread(t, d, map[string]any{"id": "0199aaaa-archived", "rollout_path": "/gone.jsonl", "cwd": "/home/example/a",
		"archived": 1, "name": "Named", "title": "T", "created_at": 1796000000, "updated_at": 1796000001})
	sessiontest.InsertThread(t, d, map[string]any{"id": "0199bbbb-missing", "rollout_path": "/gone.jsonl", "cwd": "/home/example/b",
		"first_user_message": "do the thing", "created_at": 1796000000, "updated_at": 1796000001})
	d.Close()

	got, diags := sessiontest.List(t, &codexsessions.Reader{Dir: dir}, false)
	if len(diags) != 0 || len(got) != 2 {
		t.Fatalf("%d sessions %v", len(got), diags)
	}
	s := got[sessiontest.SampleCodex]
	checkCodexSample(t, s)
	if s.Title != "TOOL_BASH please" || s.TitleSource != agent.TitleThread || s.GitOrigin != "github.com/org/repo" || s.Origin != "exec" {
		t.Errorf("sample: %+v", s)
	}
	if s.Created.Format(time.RFC3339) != "2026-11-30T11:02:34Z" {
		t.Errorf("created from created_at_ms trigger: %v", s.Created)
	}
	m := got["0199bbbb-missing"]
	if m.State != agent.StateUnknown || m.Title != "do the thing" || m.TitleSource != agent.TitleFirstUser {
		t.Errorf("missing rollout: %+v", m)
	}
	all, _ := sessiontest.List(t, &codexsessions.Reader{Dir: dir}, true)
	if a := all["0199aaaa-archived"]; !a.Archived || a.Title != "Named" || a.TitleSource != agent.TitleName {
		t.Errorf("archived with --all: %+v", a)
	}
}

func TestCodexSchemaProbe(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "state_9.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	// A future (or past) schema with only a few columns.
	if _, err := db.Exec(`CREATE TABLE threads (id TEXT, cwd TEXT, rollout_path TEXT, updated_at INTEGER, extra BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO threads VALUES ('0199cccc-1', '/home/example/c', '', 1796000000, x'00')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	got, diags := sessiontest.List(t, &codexsessions.Reader{Dir: dir}, false)
	if s, ok := got["0199cccc-1"]; !ok || s.Title != "c" || s.LastActivity.Unix() != 1796000000 {
		t.Errorf("probe: %+v %v", got, diags)
	}
	// An unfamiliar table: diagnostic, and the rollouts are scanned.
	dir2, _ := sessiontest.CodexHome(t, false)
	db, _ = sql.Open("sqlite", filepath.Join(dir2, "state_5.sqlite"))
	db.Exec(`CREATE TABLE threads (thread TEXT)`)
	db.Close()
	got, diags = sessiontest.List(t, &codexsessions.Reader{Dir: dir2}, false)
	if len(diags) != 1 || !strings.Contains(diags[0].Problem, "falling back") {
		t.Errorf("diags %v", diags)
	}
	if _, ok := got[sessiontest.SampleCodex]; !ok {
		t.Errorf("fallback did not find the rollout: %v", got)
	}
}

func TestCodexRolloutFallback(t *testing.T) {
	dir, _ := sessiontest.CodexHome(t, false)
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-00-00-empty.jsonl"), nil)
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-00-01-junk.jsonl"), []byte("junk\n"))
	arch := filepath.Join(dir, "archived_sessions", "rollout-2026-11-01T00-00-00-0199dddd.jsonl")
	sessiontest.WriteFile(t, arch, []byte(`{"timestamp":"2026-11-01T00:00:00Z","type":"session_meta","payload":{"id":"0199dddd","cwd":"/home/example/d","source":"cli"}}`+"\n"+
		`{"timestamp":"2026-11-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"older prompt"}}`+"\n"))
	got, diags := sessiontest.List(t, &codexsessions.Reader{Dir: dir}, false)
	if len(got) != 1 || len(diags) != 2 {
		t.Fatalf("sessions %v diags %v", got, diags)
	}
	s := got[sessiontest.SampleCodex]
	checkCodexSample(t, s)
	if s.Title != "TOOL_BASH please" || s.TitleSource != agent.TitleFirstUser || s.Origin != "exec" {
		t.Errorf("title %q %s origin %q", s.Title, s.TitleSource, s.Origin)
	}
	all, _ := sessiontest.List(t, &codexsessions.Reader{Dir: dir}, true)
	if a := all["0199dddd"]; !a.Archived || a.Title != "older prompt" {
		t.Errorf("archived: %+v", a)
	}
}

func TestCodexGet(t *testing.T) {
	dir, _ := sessiontest.CodexHome(t, true)
	r := &codexsessions.Reader{Dir: dir}
	got, _ := sessiontest.List(t, r, false)
	full, err := r.Get(context.Background(), got[sessiontest.SampleCodex])
	if err != nil {
		t.Fatal(err)
	}
	if full.Counts == nil || full.Counts.HumanPrompts != 2 || full.Counts.ToolCalls != 1 {
		t.Errorf("counts %+v", full.Counts)
	}
	if strings.Join(full.RecentPrompts, "|") != "TOOL_BASH please|again" {
		t.Errorf("prompts %q", full.RecentPrompts)
	}
	if len(full.ContextCurve) != 3 || full.ContextCurve[2] != 153 {
		t.Errorf("curve %v", full.ContextCurve)
	}
}

func TestStateDBPicksHighest(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"state_5.sqlite", "state_12.sqlite", "state_9.sqlite", "state_x.sqlite", "state_13.sqlite-wal"} {
		sessiontest.WriteFile(t, filepath.Join(dir, n), nil)
	}
	if got := codex.StateDB(dir); filepath.Base(got) != "state_12.sqlite" {
		t.Errorf("got %s", got)
	}
	if codex.StateDB(filepath.Join(dir, "none")) != "" {
		t.Error("missing dir")
	}
	_ = os.Remove
}

func TestCodexRunningWhileRolloutIsOpen(t *testing.T) {
	dir, rollout := sessiontest.CodexHome(t, true)
	got, _ := sessiontest.List(t, &codexsessions.Reader{Dir: dir, Procs: sessiontest.OpenFiles{rollout: 4321, "/other": 1}}, false)
	if s := got[sessiontest.SampleCodex]; s.State != agent.StateRunning || s.Runtime == nil || s.Runtime.PID != 4321 {
		t.Errorf("open rollout: %s %+v", s.State, s.Runtime)
	}
	got, _ = sessiontest.List(t, &codexsessions.Reader{Dir: dir, Procs: sessiontest.OpenFiles{}}, false)
	if s := got[sessiontest.SampleCodex]; s.State != agent.StateResumable {
		t.Errorf("closed rollout: %s", s.State)
	}
}

func TestOSProcessesOpenBy(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "held-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := scan.OSProcesses{}.OpenBy(map[string]bool{f.Name(): true, "/nonexistent": true})
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	if got[f.Name()] != os.Getpid() || len(got) != 1 {
		t.Errorf("OpenBy: %v (want %s held by %d)", got, f.Name(), os.Getpid())
	}
}

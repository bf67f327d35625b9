package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/corpus"
)

const sampleCodex = "01a22c1e-edbd-73b1-9ee8-1fcd43d77fc9"

// codexHome builds a CODEX_HOME with the real sample rollout at its usual
// place; with db set, also a state_5.sqlite from the real schema.
func codexHome(t *testing.T, db bool) (dir, rollout string) {
	t.Helper()
	dir = t.TempDir()
	rollout = filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-02-34-"+sampleCodex+".jsonl")
	writeFile(t, rollout, readTestdata(t, "codex-0.171.0-rollout-tool-resume.jsonl"))
	if db {
		d := newStateDB(t, filepath.Join(dir, "state_5.sqlite"))
		insertThread(t, d, map[string]any{"id": sampleCodex, "rollout_path": rollout, "cwd": "/home/example/src/codex-proj",
			"title": "TOOL_BASH please", "first_user_message": "TOOL_BASH please", "source": "exec",
			"created_at": 1796036554, "updated_at": 1796036555, "git_origin_url": "git@github.com:org/repo.git", "git_branch": "main"})
		d.Close()
	}
	return dir, rollout
}

func newStateDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// The dump includes SQLite's own sqlite_sequence, which cannot be
	// created by hand.
	schema := corpus.StateDDL()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	return db
}

func insertThread(t *testing.T, db *sql.DB, cols map[string]any) {
	t.Helper()
	defaults := map[string]any{"source": "cli", "model_provider": "fake", "title": "", "sandbox_policy": "{}", "approval_mode": "never"}
	for k, v := range defaults {
		if _, ok := cols[k]; !ok {
			cols[k] = v
		}
	}
	var names, marks []string
	var vals []any
	for k, v := range cols {
		names = append(names, k)
		marks = append(marks, "?")
		vals = append(vals, v)
	}
	q := fmt.Sprintf("INSERT INTO threads (%s) VALUES (%s)", strings.Join(names, ","), strings.Join(marks, ","))
	if _, err := db.Exec(q, vals...); err != nil {
		t.Fatal(err)
	}
}

func listCodex(t *testing.T, r *codexsessions.Reader, all bool) (map[string]Session, []Diagnostic) {
	t.Helper()
	ss, diags, err := r.List(context.Background(), ListOptions{All: all})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Session{}
	for _, s := range ss {
		m[s.ID] = s
	}
	return m, diags
}

func checkCodexSample(t *testing.T, s Session) {
	t.Helper()
	if s.Cwd != "/home/example/src/codex-proj" || s.State != StateResumable {
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
	if strings.Join(s.Resume.Argv, " ") != "codex resume "+sampleCodex || s.Resume.Dir != s.Cwd {
		t.Errorf("resume %+v", s.Resume)
	}
}

func TestCodexFromStateDB(t *testing.T) {
	dir, _ := codexHome(t, true)
	// A lower-numbered DB must be ignored.
	old := newStateDB(t, filepath.Join(dir, "state_4.sqlite"))
	insertThread(t, old, map[string]any{"id": "ffffffff-old", "rollout_path": "/nope", "cwd": "/x", "created_at": 1, "updated_at": 1})
	old.Close()
	d, err := sql.Open("sqlite", filepath.Join(dir, "state_5.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	insertThread(t, d, map[string]any{"id": "0199aaaa-archived", "rollout_path": "/gone.jsonl", "cwd": "/home/example/a",
		"archived": 1, "name": "Named", "title": "T", "created_at": 1796000000, "updated_at": 1796000001})
	insertThread(t, d, map[string]any{"id": "0199bbbb-missing", "rollout_path": "/gone.jsonl", "cwd": "/home/example/b",
		"first_user_message": "do the thing", "created_at": 1796000000, "updated_at": 1796000001})
	d.Close()

	got, diags := listCodex(t, &codexsessions.Reader{Dir: dir}, false)
	if len(diags) != 0 || len(got) != 2 {
		t.Fatalf("%d sessions %v", len(got), diags)
	}
	s := got[sampleCodex]
	checkCodexSample(t, s)
	if s.Title != "TOOL_BASH please" || s.TitleSource != TitleThread || s.GitOrigin != "github.com/org/repo" || s.Origin != "exec" {
		t.Errorf("sample: %+v", s)
	}
	if s.Created.Format(time.RFC3339) != "2026-11-30T11:02:34Z" {
		t.Errorf("created from created_at_ms trigger: %v", s.Created)
	}
	m := got["0199bbbb-missing"]
	if m.State != StateUnknown || m.Title != "do the thing" || m.TitleSource != TitleFirstUser {
		t.Errorf("missing rollout: %+v", m)
	}
	all, _ := listCodex(t, &codexsessions.Reader{Dir: dir}, true)
	if a := all["0199aaaa-archived"]; !a.Archived || a.Title != "Named" || a.TitleSource != TitleName {
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
	got, diags := listCodex(t, &codexsessions.Reader{Dir: dir}, false)
	if s, ok := got["0199cccc-1"]; !ok || s.Title != "c" || s.LastActivity.Unix() != 1796000000 {
		t.Errorf("probe: %+v %v", got, diags)
	}
	// An unfamiliar table: diagnostic, and the rollouts are scanned.
	dir2, _ := codexHome(t, false)
	db, _ = sql.Open("sqlite", filepath.Join(dir2, "state_5.sqlite"))
	db.Exec(`CREATE TABLE threads (thread TEXT)`)
	db.Close()
	got, diags = listCodex(t, &codexsessions.Reader{Dir: dir2}, false)
	if len(diags) != 1 || !strings.Contains(diags[0].Problem, "falling back") {
		t.Errorf("diags %v", diags)
	}
	if _, ok := got[sampleCodex]; !ok {
		t.Errorf("fallback did not find the rollout: %v", got)
	}
}

func TestCodexRolloutFallback(t *testing.T) {
	dir, _ := codexHome(t, false)
	writeFile(t, filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-00-00-empty.jsonl"), nil)
	writeFile(t, filepath.Join(dir, "sessions", "2026", "11", "30", "rollout-2026-11-30T11-00-01-junk.jsonl"), []byte("junk\n"))
	arch := filepath.Join(dir, "archived_sessions", "rollout-2026-11-01T00-00-00-0199dddd.jsonl")
	writeFile(t, arch, []byte(`{"timestamp":"2026-11-01T00:00:00Z","type":"session_meta","payload":{"id":"0199dddd","cwd":"/home/example/d","source":"cli"}}`+"\n"+
		`{"timestamp":"2026-11-01T00:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"older prompt"}}`+"\n"))
	got, diags := listCodex(t, &codexsessions.Reader{Dir: dir}, false)
	if len(got) != 1 || len(diags) != 2 {
		t.Fatalf("sessions %v diags %v", got, diags)
	}
	s := got[sampleCodex]
	checkCodexSample(t, s)
	if s.Title != "TOOL_BASH please" || s.TitleSource != TitleFirstUser || s.Origin != "exec" {
		t.Errorf("title %q %s origin %q", s.Title, s.TitleSource, s.Origin)
	}
	all, _ := listCodex(t, &codexsessions.Reader{Dir: dir}, true)
	if a := all["0199dddd"]; !a.Archived || a.Title != "older prompt" {
		t.Errorf("archived: %+v", a)
	}
}

func TestCodexGet(t *testing.T) {
	dir, _ := codexHome(t, true)
	r := &codexsessions.Reader{Dir: dir}
	got, _ := listCodex(t, r, false)
	full, err := r.Get(context.Background(), got[sampleCodex])
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
		writeFile(t, filepath.Join(dir, n), nil)
	}
	if got := codex.StateDB(dir); filepath.Base(got) != "state_12.sqlite" {
		t.Errorf("got %s", got)
	}
	if codex.StateDB(filepath.Join(dir, "none")) != "" {
		t.Error("missing dir")
	}
	_ = os.Remove
}

// fakeOpen says which files are held open, by which pid.
type fakeOpen map[string]int

func (f fakeOpen) OpenBy(paths map[string]bool) map[string]int {
	out := map[string]int{}
	for p, pid := range f {
		if paths[p] {
			out[p] = pid
		}
	}
	return out
}

func TestCodexRunningWhileRolloutIsOpen(t *testing.T) {
	dir, rollout := codexHome(t, true)
	got, _ := listCodex(t, &codexsessions.Reader{Dir: dir, Procs: fakeOpen{rollout: 4321, "/other": 1}}, false)
	if s := got[sampleCodex]; s.State != StateRunning || s.Runtime == nil || s.Runtime.PID != 4321 {
		t.Errorf("open rollout: %s %+v", s.State, s.Runtime)
	}
	got, _ = listCodex(t, &codexsessions.Reader{Dir: dir, Procs: fakeOpen{}}, false)
	if s := got[sampleCodex]; s.State != StateResumable {
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

package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// dirSkipHome is a config dir with one project of three sessions, each
// one human prompt at t0.
// idleDirSkipHome is dirSkipHome three days old, its transcripts and its
// directory last written then (a directory the listing may trust).
func idleDirSkipHome(t *testing.T) (old time.Time, dir, proj string, ids []string) {
	t.Helper()
	old = time.Now().Add(-72 * time.Hour).UTC()
	dir, proj, ids = dirSkipHome(t, old)
	for _, id := range ids {
		sessiontest.SetMTime(t, filepath.Join(proj, id+".jsonl"), old)
	}
	sessiontest.SetMTime(t, proj, old)
	return old, dir, proj, ids
}

func dirSkipHome(t *testing.T, t0 time.Time) (dir, proj string, ids []string) {
	t.Helper()
	dir = t.TempDir()
	proj = filepath.Join(dir, "projects", "-home-example-src-p")
	for i := range 3 {
		id := fmt.Sprintf("%08d-1111-2222-3333-444444444444", i)
		ids = append(ids, id)
		sessiontest.WriteFile(t, filepath.Join(proj, id+".jsonl"), sessiontest.JSONLines(
			sessiontest.UserRec(id, "/home/example/src/p", t0.Format(time.RFC3339Nano), fmt.Sprintf("first prompt %d", i), nil)))
	}
	return dir, proj, ids
}

// appendPrompt appends a human prompt at ts to a transcript, as Claude
// Code does: in place, which leaves the directory's mtime alone.
func appendPrompt(t *testing.T, path, id string, ts time.Time) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(sessiontest.JSONLines(sessiontest.UserRec(id, "/home/example/src/p", ts.Format(time.RFC3339Nano), "later prompt", nil))); err != nil {
		t.Fatal(err)
	}
}

// listWith lists with a fresh Cache over cachePath, as a new process would.
func listWith(t *testing.T, r *claudesessions.Reader, cachePath string) map[string]Session {
	t.Helper()
	r.Cache = claudesessions.OpenCache(cachePath)
	got, diags := sessiontest.List(t, r, false)
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	return got
}

// Recently active directory (the usual case for a live session): every
// change is seen at once, appends included.
func TestClaudeListDirSkipSeesChangesInActiveDir(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).UTC()
	dir, proj, ids := dirSkipHome(t, t0)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}
	if got := listWith(t, r, cachePath); len(got) != 3 {
		t.Fatalf("first list: %d sessions", len(got))
	}
	listWith(t, r, cachePath) // now the directory has a record

	later := t0.Add(30 * time.Minute)
	appendPrompt(t, filepath.Join(proj, ids[0]+".jsonl"), ids[0], later)
	got := listWith(t, r, cachePath)
	if s := got[ids[0]]; !s.LastActivity.Equal(later) {
		t.Errorf("append not seen: last activity %v, want %v", s.LastActivity, later)
	}

	newID := "99999999-1111-2222-3333-444444444444"
	sessiontest.WriteFile(t, filepath.Join(proj, newID+".jsonl"), sessiontest.JSONLines(sessiontest.UserRec(newID, "/home/example/src/p", later.Format(time.RFC3339Nano), "new", nil)))
	if err := os.Remove(filepath.Join(proj, ids[1]+".jsonl")); err != nil {
		t.Fatal(err)
	}
	got = listWith(t, r, cachePath)
	if _, ok := got[newID]; !ok {
		t.Errorf("new transcript not listed: %v", keys(got))
	}
	if _, ok := got[ids[1]]; ok {
		t.Errorf("removed transcript still listed")
	}
	if len(got) != 3 {
		t.Errorf("%d sessions, want 3: %v", len(got), keys(got))
	}
}

// A directory idle for days is trusted without stat-ing its files; a
// created or removed file changes its mtime and is seen, an append to a
// live session is seen, and any append is seen after scan.DirRecheck.
func TestClaudeListDirSkipIdleDir(t *testing.T) {
	old, dir, proj, ids := idleDirSkipHome(t)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	now := time.Now()
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{4242: true}, Now: func() time.Time { return now }}
	listWith(t, r, cachePath)

	// The skip is real: a file removed behind the directory's back (its
	// mtime put back) is not noticed until the recheck.
	gone := filepath.Join(proj, ids[2]+".jsonl")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	sessiontest.SetMTime(t, proj, old)
	if got := listWith(t, r, cachePath); len(got) != 3 {
		t.Fatalf("trusted directory re-listed: %d sessions", len(got))
	}

	// A new file changes the directory's mtime: listed, and the removed
	// one is gone with the fresh listing.
	newID := "99999999-1111-2222-3333-444444444444"
	sessiontest.WriteFile(t, filepath.Join(proj, newID+".jsonl"), sessiontest.JSONLines(sessiontest.UserRec(newID, "/home/example/src/p", time.Now().UTC().Add(-2*time.Hour).Format(time.RFC3339Nano), "new", nil)))
	sessiontest.SetMTime(t, filepath.Join(proj, newID+".jsonl"), old)
	sessiontest.SetMTime(t, proj, old.Add(time.Second)) // changed, but not racy
	now = time.Now().Add(3 * time.Second)               // past the racy window of this listing
	got := listWith(t, r, cachePath)
	if _, ok := got[newID]; !ok {
		t.Errorf("new transcript not listed: %v", keys(got))
	}
	if _, ok := got[ids[2]]; ok {
		t.Errorf("removed transcript still listed")
	}

	// A live session's append is seen (the directory is trusted again).
	sessiontest.WriteFile(t, filepath.Join(dir, "sessions", "4242.json"), []byte(fmt.Sprintf(`{"pid":4242,"sessionId":%q}`, ids[0])))
	live := time.Now().UTC().Add(-time.Minute)
	appendPrompt(t, filepath.Join(proj, ids[0]+".jsonl"), ids[0], live)
	got = listWith(t, r, cachePath)
	if s := got[ids[0]]; !s.LastActivity.Equal(live) || s.State != StateRunning {
		t.Errorf("live append not seen: %v %s, want %v", s.LastActivity, s.State, live)
	}

}

// An append to an idle session by a process that is gone is seen once
// the directory's record is older than scan.DirRecheck.
func TestClaudeListDirSkipRecheck(t *testing.T) {
	old, dir, proj, ids := idleDirSkipHome(t)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	now := time.Now()
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Now: func() time.Time { return now }}
	listWith(t, r, cachePath)

	later := old.Add(time.Hour)
	appendPrompt(t, filepath.Join(proj, ids[1]+".jsonl"), ids[1], later)
	now = now.Add(scan.DirRecheck + time.Minute)
	if s := listWith(t, r, cachePath)[ids[1]]; !s.LastActivity.Equal(later) {
		t.Errorf("append not seen after the recheck: %v, want %v", s.LastActivity, later)
	}
}

func keys(m map[string]Session) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A transcript whose last record is too big for the default tail is read
// again only before its tail: the head, which named the cwd, and the tail
// are not read twice (issue 17: at most 128 KiB a file on average).
func TestClaudeListWidensTailWithoutRereading(t *testing.T) {
	for _, pads := range []int{60, 200} { // the widened tail joins the head; it does not
		dir := t.TempDir()
		const id = "55555555-1111-2222-3333-444444444444"
		cwd := "/home/example/src/p"
		var recs []map[string]any
		recs = append(recs, sessiontest.UserRec(id, cwd, "2026-01-01T00:00:00Z", "first prompt", nil))
		pad := strings.Repeat("p", 1000)
		for i := range pads {
			recs = append(recs, sessiontest.UserRec(id, cwd, fmt.Sprintf("2026-01-01T00:%02d:%02dZ", i/60, i%60), []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": pad}}, nil))
		}
		recs = append(recs, sessiontest.AsstRec(id, "2026-01-01T01:00:00Z", "claude-sonnet-4-5", 700, 0, 0, nil))
		recs = append(recs, sessiontest.UserRec(id, cwd, "2026-01-01T01:00:01Z", []any{map[string]any{"type": "tool_result", "tool_use_id": "y", "content": strings.Repeat("z", 150<<10)}}, nil))
		data := sessiontest.JSONLines(recs...)
		sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), data)
		var o sessiontest.CountingOpener
		r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open}
		got, diags := sessiontest.List(t, r, false)
		s, ok := got[id]
		if !ok || len(diags) != 0 {
			t.Fatalf("sessions %v, diagnostics %v", keys(got), diags)
		}
		if s.Context == nil || s.Context.Tokens != 700 || s.Cwd != cwd || s.Title != "first prompt" {
			t.Errorf("%d pads: usage, cwd or title lost: %+v %+v", pads, s.Context, s)
		}
		// Before: the head and tail again with the Max budgets, 32+96+128+256 KiB.
		if max := int64(scan.DefaultHeadBytes + scan.MaxTailBytes); o.N.Load() > max {
			t.Errorf("%d pads: read %d bytes of a %d-byte file, want at most %d", pads, o.N.Load(), len(data), max)
		}
	}
}

// A directory written in the last day is read on every listing (it is not
// trusted), but when nothing in it changed the cache file is left alone:
// rewriting the whole cache for a new check time cost ~67 ms of CPU per
// listing at 10,000 sessions for anyone with a session of today.
func TestClaudeListActiveDirUnchangedKeepsCacheFile(t *testing.T) {
	t0 := time.Now().Add(-time.Hour).UTC()
	dir, proj, ids := dirSkipHome(t, t0)
	ten := time.Now().Add(-10 * time.Minute)
	for _, id := range ids {
		sessiontest.SetMTime(t, filepath.Join(proj, id+".jsonl"), ten)
	}
	sessiontest.SetMTime(t, proj, ten)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}
	listWith(t, r, cachePath)
	listWith(t, r, cachePath)
	before := inodeOf(t, cachePath)
	if got := listWith(t, r, cachePath); len(got) != 3 {
		t.Fatalf("%d sessions", len(got))
	}
	if after := inodeOf(t, cachePath); after != before {
		t.Errorf("cache file rewritten by a listing that found nothing new")
	}
	// An append is still seen, and recorded.
	later := t0.Add(30 * time.Minute)
	appendPrompt(t, filepath.Join(proj, ids[0]+".jsonl"), ids[0], later)
	if s := listWith(t, r, cachePath)[ids[0]]; !s.LastActivity.Equal(later) {
		t.Errorf("append not seen: last activity %v, want %v", s.LastActivity, later)
	}
}

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A transcript whose tail ends at a compaction boundary has no usage
// after it, and none before it counts: reading further back cannot find
// any, so the list stays within its budget (issue 17: ≤ 128 KiB a file;
// one session in five of the bench corpus ends this way and cost 288 KiB).
func TestClaudeListNoWidenPastCompactBoundary(t *testing.T) {
	dir := t.TempDir()
	const id = "55555555-1111-2222-3333-555555555555"
	cwd := "/home/example/src/p"
	recs := []map[string]any{sessiontest.UserRec(id, cwd, "2026-01-01T00:00:00Z", "first prompt", nil)}
	pad := strings.Repeat("p", 1000)
	for i := range 300 {
		recs = append(recs, sessiontest.UserRec(id, cwd, fmt.Sprintf("2026-01-01T00:%02d:%02dZ", i/60, i%60), []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": pad}}, nil))
	}
	recs = append(recs, sessiontest.AsstRec(id, "2026-01-01T01:00:00Z", "claude-sonnet-4-5", 700, 0, 0, nil),
		map[string]any{"type": "system", "subtype": "compact_boundary", "parentUuid": nil, "timestamp": "2026-01-01T01:00:01Z",
			"compactMetadata": map[string]any{"trigger": "manual", "preTokens": 150000, "postTokens": 9000}})
	data := sessiontest.JSONLines(recs...)
	sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), data)
	var o sessiontest.CountingOpener
	got, _ := sessiontest.List(t, &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open}, false)
	s := got[id]
	if s.Context != nil || s.Cwd != cwd || s.Title != "first prompt" {
		t.Errorf("context %+v, cwd %q, title %q", s.Context, s.Cwd, s.Title)
	}
	if max := int64(scan.DefaultHeadBytes + scan.DefaultTailBytes); o.N.Load() > max {
		t.Errorf("read %d bytes of a %d-byte file, want at most %d", o.N.Load(), len(data), max)
	}
}

// The same for a Codex rollout that ends compacted.
func TestCodexListNoWidenPastCompacted(t *testing.T) {
	dir, rollout := sessiontest.CodexHome(t, true)
	var b bytes.Buffer
	b.Write(sessiontest.Sample(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl"))
	pad := strings.Repeat("p", 1000)
	for range 300 {
		fmt.Fprintf(&b, `{"timestamp":"2026-11-30T11:03:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":%q}}`+"\n", pad)
	}
	b.WriteString(`{"timestamp":"2026-11-30T11:04:00.000Z","type":"compacted","payload":{"message":""}}` + "\n")
	sessiontest.WriteFile(t, rollout, b.Bytes())
	var o sessiontest.CountingOpener
	got, _ := sessiontest.List(t, &codexsessions.Reader{Dir: dir, Procs: sessiontest.OpenFiles{}, Open: o.Open}, false)
	if s, ok := got[sessiontest.SampleCodex]; !ok || s.Context != nil {
		t.Errorf("session %v: context %+v", ok, s.Context)
	}
	if max := int64(scan.DefaultHeadBytes + scan.DefaultTailBytes); o.N.Load() > max {
		t.Errorf("read %d bytes of a %d-byte file, want at most %d", o.N.Load(), b.Len(), max)
	}
}

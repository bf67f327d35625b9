package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// fakeCounts is a CountIndex that knows the exact counts of some files at
// some (size, mtime), as the search index would.
type fakeCounts struct {
	stamp string
	m     map[string]fakeCount
	loads int
}

type fakeCount struct {
	size, mtime int64
	mc          MessageCount
}

func (f *fakeCounts) Stamp() string { return f.stamp }

func (f *fakeCounts) Load() (CountLookup, error) {
	f.loads++
	return func(path string, size, mtime int64) (MessageCount, bool) {
		c, ok := f.m[path]
		if !ok || c.size != size || c.mtime != mtime {
			return MessageCount{}, false
		}
		return c.mc, true
	}, nil
}

// exactCount counts a file whole, as the index does.
func exactCount(t *testing.T, harness, path string) fakeCount {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	var mc MessageCount
	if _, err := TextsCounted(harness, f, &mc, func(Text) {}); err != nil {
		t.Fatal(err)
	}
	return fakeCount{fi.Size(), fi.ModTime().UnixNano(), mc}
}

// showCount is the message count `sessions show` reports.
func showCount(t *testing.T, r Reader, s Session) int {
	t.Helper()
	full, err := r.Get(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if full.Messages == nil || *full.Messages != full.Counts.Messages {
		t.Fatalf("show: messages %v, counts %+v", full.Messages, full.Counts)
	}
	return full.Counts.Messages
}

func msgs(s Session) string {
	if s.Messages == nil {
		return "unknown"
	}
	return fmt.Sprint(*s.Messages)
}

// The rule's corner cases: sidechain records, API errors and synthetic
// messages do not count; records sharing a message id are one message.
func claudeCountCases(id, cwd string) []map[string]any {
	same := func(ts string) map[string]any {
		r := sessiontest.AsstRec(id, ts, "claude-sonnet-4-5", 1, 1, 1, nil)
		r["message"].(map[string]any)["id"] = "msg-shared"
		return r
	}
	return []map[string]any{
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:00Z", "hello there", nil),
		same("2026-01-01T00:00:01Z"),
		same("2026-01-01T00:00:02Z"),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:03Z", "side", map[string]any{"isSidechain": true}),
		sessiontest.AsstRec(id, "2026-01-01T00:00:04Z", "claude-sonnet-4-5", 1, 1, 1, map[string]any{"isSidechain": true}),
		sessiontest.AsstRec(id, "2026-01-01T00:00:05Z", "<synthetic>", 0, 0, 0, map[string]any{"isApiErrorMessage": true}),
		sessiontest.AsstRec(id, "2026-01-01T00:00:06Z", "<synthetic>", 0, 0, 0, nil),
		sessiontest.UserRec(id, cwd, "2026-01-01T00:00:07Z", "again", nil),
		sessiontest.AsstRec(id, "2026-01-01T00:00:08Z", "claude-sonnet-4-5", 2, 2, 2, nil),
	}
}

func TestListCountsSmallFilesExactly(t *testing.T) {
	dir := sessiontest.ClaudeHome(t)
	const id = "33333333-2222-3333-4444-555555555555"
	sessiontest.WriteFile(t, filepath.Join(dir, "projects", "p", id+".jsonl"), sessiontest.JSONLines(claudeCountCases(id, "/home/example/src/p")...))
	var o sessiontest.CountingOpener
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open, Cache: claudesessions.OpenCache(filepath.Join(t.TempDir(), "c.gob"))}
	got, _ := sessiontest.List(t, r, false)
	if len(got) != 3 {
		t.Fatalf("%d sessions", len(got))
	}
	if s := got[id]; msgs(s) != "4" {
		t.Errorf("corner cases: %s messages, want 4 (2 user, 2 assistant messages)", msgs(s))
	}
	var size int64
	for _, s := range got {
		if want := showCount(t, r, s); msgs(s) != fmt.Sprint(want) {
			t.Errorf("%s: list %s, show %d", s.ID, msgs(s), want)
		}
		fi, _ := os.Stat(s.Source)
		size += fi.Size()
	}
	// Counting costs no read the list did not do anyway (show read too).
	if o.N.Load() != 2*size {
		t.Errorf("read %d bytes, want %d (each file once by list, once by show)", o.N.Load(), 2*size)
	}
	// Warm: the count comes from the cache.
	r.Cache = claudesessions.OpenCache(r.Cache.Path())
	got, _ = sessiontest.List(t, r, false)
	if msgs(got[id]) != "4" {
		t.Errorf("warm: %s", msgs(got[id]))
	}
}

// bigClaude writes a transcript larger than the list reads.
func bigClaude(t *testing.T, dir string) (path string) {
	t.Helper()
	path = filepath.Join(dir, "projects", "p", "00000007-0000-0000-0000-000000000000.jsonl")
	sessiontest.WriteFile(t, path, sessiontest.ClaudeTranscript(7, 1<<20))
	return path
}

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestListCountsFromIndexThenIncrementally(t *testing.T) {
	dir := t.TempDir()
	path := bigClaude(t, dir)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	var o sessiontest.CountingOpener
	ix := &fakeCounts{stamp: "1", m: map[string]fakeCount{}}
	newReader := func() *claudesessions.Reader {
		return &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open, Cache: claudesessions.OpenCache(cachePath), Counts: ix}
	}
	r := newReader()
	// Cold, no index entry: unknown (the index was asked once).
	got, _ := sessiontest.List(t, r, false)
	if got[id].Messages != nil || ix.loads != 1 {
		t.Fatalf("a file not read whole has a count: %s (loads %d)", msgs(got[id]), ix.loads)
	}
	// Unchanged index: not asked again.
	got, _ = sessiontest.List(t, newReader(), false)
	if ix.loads != 1 {
		t.Fatalf("an unchanged index was asked again")
	}
	// The index counted it: the next list takes the count, once.
	ix.m[path] = exactCount(t, ClaudeCode, path)
	ix.stamp = "2"
	r = newReader()
	got, _ = sessiontest.List(t, r, false)
	want := showCount(t, r, got[id])
	if msgs(got[id]) != fmt.Sprint(want) || ix.loads != 2 {
		t.Fatalf("from the index: %s, want %d (loads %d)", msgs(got[id]), want, ix.loads)
	}
	// Warm: from the cache, no index load.
	r = newReader()
	got, _ = sessiontest.List(t, r, false)
	if msgs(got[id]) != fmt.Sprint(want) || ix.loads != 2 {
		t.Fatalf("warm: %s, loads %d", msgs(got[id]), ix.loads)
	}
	// Appended: a record continuing the last message (same id: not a new
	// message), then a new turn. Only the new bytes are counted.
	last := sessiontest.AsstRec(id, "2026-01-01T00:00:03Z", "claude-sonnet-4-5", 1, 1, 1, nil)
	lastID := lastAssistantID(t, path)
	last["message"].(map[string]any)["id"] = lastID
	appendFile(t, path, sessiontest.JSONLines(last,
		sessiontest.UserRec(id, "/home/example/src/project-7", "2026-02-01T00:00:00Z", "one more", nil),
		sessiontest.AsstRec(id, "2026-02-01T00:00:01Z", "claude-sonnet-4-5", 1, 1, 1, nil)))
	ix.stamp = "3" // even with a changed index, nothing is missing: no load
	o.N.Store(0)
	r = newReader()
	got, _ = sessiontest.List(t, r, false)
	read := o.N.Load()
	want2 := showCount(t, r, got[id])
	if want2 != want+2 || msgs(got[id]) != fmt.Sprint(want2) || ix.loads != 2 {
		t.Errorf("after append: list %s, show %d (before %d), loads %d", msgs(got[id]), want2, want, ix.loads)
	}
	if read > scan.DefaultHeadBytes+scan.DefaultTailBytes {
		t.Errorf("an append read %d bytes, more than head + tail", read)
	}
	// Rewritten (a trim: a new file renamed into place): the count is
	// dropped, not carried over.
	data, _ := os.ReadFile(path)
	tmp := path + ".tmp"
	sessiontest.WriteFile(t, tmp, append(data[:len(data)/2:len(data)/2], data...))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	got, _ = sessiontest.List(t, newReader(), false)
	if got[id].Messages != nil {
		t.Errorf("rewritten file kept a count: %s", msgs(got[id]))
	}
	// Shrunk in place: dropped too.
	ix.m[path] = exactCount(t, ClaudeCode, path)
	ix.stamp = "4"
	got, _ = sessiontest.List(t, newReader(), false)
	if got[id].Messages == nil {
		t.Fatal("index count not taken")
	}
	if err := os.Truncate(path, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, time.Now(), time.Now().Add(time.Minute))
	got, _ = sessiontest.List(t, newReader(), false)
	if got[id].Messages != nil {
		t.Errorf("shrunk file kept a count: %s", msgs(got[id]))
	}
}

func lastAssistantID(t *testing.T, path string) string {
	t.Helper()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if j := strings.Index(lines[i], `"id":"msg-`); j >= 0 && strings.Contains(lines[i], `"type":"assistant"`) {
			rest := lines[i][j+len(`"id":"`):]
			return rest[:strings.IndexByte(rest, '"')]
		}
	}
	t.Fatal("no assistant record")
	return ""
}

// A small file that grows past the read budgets keeps an exact count:
// counted whole first, then only what was appended.
func TestListCountGrowsPastTheBudget(t *testing.T) {
	dir := t.TempDir()
	const id = "44444444-2222-3333-4444-555555555555"
	path := filepath.Join(dir, "projects", "p", id+".jsonl")
	sessiontest.WriteFile(t, path, sessiontest.JSONLines(claudeCountCases(id, "/home/example/src/p")...))
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Cache: claudesessions.OpenCache(cachePath)}
	got, _ := sessiontest.List(t, r, false)
	if msgs(got[id]) != "4" {
		t.Fatalf("small: %s", msgs(got[id]))
	}
	var more []map[string]any
	for i := 0; i < 40; i++ {
		ts := time.Date(2026, 1, 2, 0, 0, i, 0, time.UTC).Format(time.RFC3339Nano)
		more = append(more, sessiontest.UserRec(id, "/home/example/src/p", ts, strings.Repeat("long prompt ", 500), nil))
	}
	appendFile(t, path, sessiontest.JSONLines(more...))
	r = &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Cache: claudesessions.OpenCache(cachePath)}
	got, _ = sessiontest.List(t, r, false)
	if want := showCount(t, r, got[id]); want != 44 || msgs(got[id]) != "44" {
		t.Errorf("grown past the budget: list %s, show %d, want 44", msgs(got[id]), want)
	}
}

func TestCodexListCounts(t *testing.T) {
	dir, rollout := sessiontest.CodexHome(t, true)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	ix := &fakeCounts{stamp: "1", m: map[string]fakeCount{}}
	newReader := func() *codexsessions.Reader {
		return &codexsessions.Reader{Dir: dir, Cache: codexsessions.OpenCache(cachePath), Counts: ix}
	}
	r := newReader()
	got, _ := sessiontest.List(t, r, false)
	s := got[sessiontest.SampleCodex]
	want := showCount(t, r, s)
	if want == 0 || msgs(s) != fmt.Sprint(want) {
		t.Fatalf("small rollout: list %s, show %d", msgs(s), want)
	}
	// Grown past the budgets: appended lines counted.
	var b strings.Builder
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `{"timestamp":"2026-11-30T12:00:%02d.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}}`+"\n", i, strings.Repeat("x", 8000))
		fmt.Fprintf(&b, `{"timestamp":"2026-11-30T12:00:%02d.500Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}`+"\n", i)
	}
	appendFile(t, rollout, []byte(b.String()))
	r = newReader()
	got, _ = sessiontest.List(t, r, false)
	if want2 := showCount(t, r, got[sessiontest.SampleCodex]); want2 != want+60 || msgs(got[sessiontest.SampleCodex]) != fmt.Sprint(want2) {
		t.Errorf("grown: list %s, show %d, want %d", msgs(got[sessiontest.SampleCodex]), want2, want+60)
	}
	// Without a cache entry (cleared) the file is too big to count: the
	// index fills it.
	os.Remove(cachePath)
	got, _ = sessiontest.List(t, newReader(), false)
	if got[sessiontest.SampleCodex].Messages != nil {
		t.Fatalf("big rollout counted cold: %s", msgs(got[sessiontest.SampleCodex]))
	}
	ix.m[rollout] = exactCount(t, Codex, rollout)
	ix.stamp = "2"
	got, _ = sessiontest.List(t, newReader(), false)
	if msgs(got[sessiontest.SampleCodex]) != fmt.Sprint(want+60) {
		t.Errorf("from the index: %s, want %d", msgs(got[sessiontest.SampleCodex]), want+60)
	}
}

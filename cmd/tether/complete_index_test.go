package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// TestCompletionIndexFromCatalog: the background refresh and `tether
// sessions list` both build the index from the real catalog, and TAB after
// claude --resume then offers the real Claude sessions.
func TestCompletionIndexFromCatalog(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("complete", "--refresh-index"); code != 0 {
		t.Fatalf("refresh: %s", ta.err)
	}
	out, code := completeOut(t, ta, "--shell", "bash", "--", "claude", "--resume", "")
	ids := strings.Fields(out)
	if code != 0 || len(ids) != 2 || !containsStr(ids, claudeNew) || !containsStr(ids, claudeOld) {
		t.Errorf("claude --resume: code %d out %q, want the Claude ids only", code, out)
	}
	out, _ = completeOut(t, ta, "--shell", "fish", "--", "tether", "sessions", "show", "01a2")
	if !strings.HasPrefix(out, codexID+"\tcodex · ") {
		t.Errorf("sessions show: %q", out)
	}

	os.Remove(compindex.Path(ta.Loc.CacheDir))
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--limit", "1"); code != 0 {
		t.Fatalf("sessions list: %s", ta.err)
	}
	entries, err := compindex.Read(compindex.Path(ta.Loc.CacheDir))
	if err != nil || len(entries) != 3 {
		t.Errorf("index after sessions list (--limit does not shrink it): %v %d", err, len(entries))
	}
	os.Remove(compindex.Path(ta.Loc.CacheDir))
	ta.run("sessions", "list", "--harness", "codex")
	if _, err := os.Stat(compindex.Path(ta.Loc.CacheDir)); err == nil {
		t.Error("a one-harness listing replaced the index")
	}
}

// The index's digest covers every field of every entry and their order:
// equal entries give equal digests, any change another.
func TestIndexDigest(t *testing.T) {
	day := time.Unix(1764500000, 0)
	base := []compindex.Entry{
		{Harness: "claude-code", ID: "a1", LastActivity: day, Root: "/home/example/p", Title: "t1"},
		{Harness: "codex", ID: "b2", LastActivity: day.Add(-time.Hour), Root: "/home/example/q", Title: "t2"},
	}
	d := indexDigest(base)
	if d != indexDigest(slices.Clone(base)) || len(d) != 64 {
		t.Fatalf("digest %q not stable", d)
	}
	seen := map[string]string{d: "base"}
	for name, change := range map[string]func(e []compindex.Entry){
		"harness":       func(e []compindex.Entry) { e[0].Harness = "codex" },
		"id":            func(e []compindex.Entry) { e[1].ID = "b3" },
		"time":          func(e []compindex.Entry) { e[0].LastActivity = day.Add(time.Second) },
		"root":          func(e []compindex.Entry) { e[1].Root = "/home/example/r" },
		"title":         func(e []compindex.Entry) { e[0].Title = "t1 " },
		"field borders": func(e []compindex.Entry) { e[0].Root, e[0].Title = "/home/example/pt", "1" },
		"order":         func(e []compindex.Entry) { e[0], e[1] = e[1], e[0] },
	} {
		es := slices.Clone(base)
		change(es)
		got := indexDigest(es)
		if other, ok := seen[got]; ok {
			t.Errorf("%s: same digest as %s", name, other)
		}
		seen[got] = name
	}
	// The digest of a listing is that of its entries (archived sessions
	// are not in the index).
	ss := []catalog.Session{
		{Harness: "claude-code", ID: "a1", LastActivity: day, IdentityRoot: "/home/example/p", Title: "t1", Cwd: "/x"},
		{Harness: "codex", ID: "z9", LastActivity: day, Archived: true, Title: "gone"},
		{Harness: "codex", ID: "b2", LastActivity: day.Add(-time.Hour), IdentityRoot: "/home/example/q", Title: "t2"},
	}
	if got := sessionsDigest(ss); got != d || got != indexDigest(indexEntriesOf(ss)) {
		t.Errorf("sessionsDigest %q, want %q", got, d)
	}
	if sessionsDigest(nil) != indexDigest(nil) {
		t.Error("empty listing: digests differ")
	}
	// Only whole seconds are written: a change below one is none.
	es := slices.Clone(base)
	es[0].LastActivity = day.Add(time.Millisecond)
	if indexDigest(es) != d {
		t.Error("a sub-second change of the time changed the digest")
	}
}

// A listing that finds the same sessions leaves the index file as it is
// (refreshing its mtime); one that finds a change rewrites it.
func TestCompletionIndexKeptWhenUnchanged(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	path := compindex.Path(ta.Loc.CacheDir)
	if code := ta.run("sessions", "list"); code != 0 {
		t.Fatalf("sessions list: %s", ta.err)
	}
	first, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(first), "\t#listing\t") {
		t.Fatalf("index after a list: %v\n%s", err, first)
	}
	st0, _ := os.Stat(path)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	if code := ta.run("sessions", "list"); code != 0 {
		t.Fatalf("sessions list: %s", ta.err)
	}
	st1, _ := os.Stat(path)
	again, _ := os.ReadFile(path)
	if string(again) != string(first) || !os.SameFile(st0, st1) || !st1.ModTime().After(old.Add(time.Minute)) {
		t.Errorf("unchanged listing: rewritten %v, mtime %v", !os.SameFile(st0, st1), st1.ModTime())
	}
	entries, _ := compindex.Read(path)
	if len(entries) == 0 {
		t.Fatal("empty index")
	}
	// Another listing of other entries is written (the digest differs).
	other := slices.Clone(entries)
	other[0].Title = "changed"
	if err := writeIndex(path, other); err != nil {
		t.Fatal(err)
	}
	if got, _ := compindex.Read(path); len(got) == 0 || got[0].Title != "changed" {
		t.Errorf("changed entries not written: %+v", got)
	}
	if code := ta.run("sessions", "list"); code != 0 {
		t.Fatalf("sessions list: %s", ta.err)
	}
	if got, _ := compindex.Read(path); !slices.Equal(got, entries) {
		t.Errorf("the listing did not restore its entries: %+v", got)
	}
}

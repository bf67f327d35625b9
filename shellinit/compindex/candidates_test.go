package compindex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/termsafe"
)

func TestIndexRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c", File)
	at := time.Unix(1764500000, 0)
	in := []Entry{
		{Harness: "claude-code", ID: "a", LastActivity: at, Root: "/odd\\dir\\n/new\nline\tx", Title: "tab\there\nnewline"},
		{Harness: "", ID: "skipped"},
	}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := Read(path)
	if err != nil || len(out) != 1 || out[0] != in[0] {
		t.Fatalf("%v %+v", err, out)
	}
	os.WriteFile(path, []byte("something else\n"), 0o600)
	if _, err := Read(path); err == nil {
		t.Error("a file without the header was read as an index")
	}
}

func TestRelTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		10 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago",
		72 * time.Hour: "3d ago", 21 * 24 * time.Hour: "3w ago", 400 * 24 * time.Hour: "2025-10-26",
	} {
		if got := RelTime(now, now.Add(-d)); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

// Issue 13 item 8: completion descriptions and prompt text carry no
// terminal controls and no bidi overrides (U+202E reached zsh's and
// fish's completion menus).
func TestCandidatesAreTerminalSafe(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	entries := []Entry{{Harness: "claude-code", ID: "abc12345", LastActivity: now, Root: "/home/example/\x1b]0;x\x07",
		Title: "evil\u202etxt.exe \x1b]52;c;cHduZWQ=\x07 \x9b2J \u2066iso\u2069"}}
	cands := SessionCandidates(entries, SessionQuery{Harnesses: []string{"claude-code"}, Root: "/elsewhere", Now: now})
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var b strings.Builder
		FormatCandidates(&b, sh, cands)
		if out := b.String(); !termsafe.Safe(strings.ReplaceAll(strings.ReplaceAll(out, "\n", ""), "\t", "")) {
			t.Errorf("%s candidates hold controls: %q", sh, out)
		}
	}
}

// ReadMatching returns exactly the entries of Read that keep
// accepts, decoded the same way.
func TestReadIndexMatching(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	at := time.Unix(1764500000, 0)
	in := []Entry{
		{Harness: "claude-code", ID: "ab1", LastActivity: at, Root: "/r\\oot", Title: "t\tone"},
		{Harness: "codex", ID: "ab2", LastActivity: at.Add(-time.Hour), Root: "/r", Title: "two"},
		{Harness: "claude-code", ID: "cd3", LastActivity: at.Add(-2 * time.Hour), Root: "/r", Title: "three"},
	}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	all, _ := Read(path)
	got, err := ReadMatching(path, func(h, id string) bool { return h == "claude-code" && strings.HasPrefix(id, "ab") })
	if err != nil || len(all) != 3 || len(got) != 1 || got[0] != all[0] || got[0] != in[0] {
		t.Fatalf("got %+v %v (all %+v)", got, err, all)
	}
}

// Rewriting an unchanged index only refreshes its mtime (complete's age
// check); a changed one is rewritten.
func TestWriteIndexUnchangedRefreshesMTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	in := []Entry{{Harness: "claude-code", ID: "a", LastActivity: time.Unix(1764500000, 0), Root: "/r", Title: "t"}}
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if st, err := os.Stat(path); err != nil || !st.ModTime().After(old.Add(time.Minute)) || string(after) != string(before) {
		t.Errorf("unchanged index: mtime %v (was %v), content changed: %v", st.ModTime(), old, string(after) != string(before))
	}
	in[0].Title = "new title"
	if err := Write(path, in); err != nil {
		t.Fatal(err)
	}
	if out, err := Read(path); err != nil || len(out) != 1 || out[0].Title != "new title" {
		t.Errorf("changed index not rewritten: %+v %v", out, err)
	}
}

// The exact lines each shell reads (a regression guard for the
// allocation-free formatting): harness prefix with two harnesses, the
// other directory's base name, zsh's escaped colon, fish's tab.
func TestFormatCandidatesLines(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	entries := []Entry{
		{Harness: "claude-code", ID: "ab:1", LastActivity: now.Add(-5 * time.Minute), Root: "/home/example/src/here", Title: "fix the bug"},
		{Harness: "codex", ID: "cd2", LastActivity: now.Add(-400 * 24 * time.Hour), Root: "/home/example/src/there", Title: "tab\there"},
	}
	cands := SessionCandidates(entries, SessionQuery{Harnesses: []string{"claude-code", "codex"}, Root: "/home/example/src/here", Now: now})
	for sh, want := range map[string]string{
		"bash": "ab:1\ncd2\n",
		"zsh":  "ab\\:1:claude-code · 5m ago · fix the bug\ncd2:codex · 2025-10-26 · tab here (there)\n",
		"fish": "ab:1\tclaude-code · 5m ago · fix the bug\ncd2\tcodex · 2025-10-26 · tab here (there)\n",
	} {
		var b strings.Builder
		if err := FormatCandidates(&b, sh, cands); err != nil || b.String() != want {
			t.Errorf("%s: %q, %v; want %q", sh, b.String(), err, want)
		}
	}
}

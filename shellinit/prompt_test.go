package shellinit

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/termsafe"
)

func TestSegmentStripsControlCharacters(t *testing.T) {
	u := Usage{Model: "evil\x1b]0;title\x07\nmodel", Percent: 50}
	got := Segment(u, SegmentOptions{Format: "{model} {pct}%", Shell: "plain", Warn: 60, Crit: 80})
	if got != "evil]0;title model 50%" {
		t.Errorf("%q", got)
	}
	if got := Segment(Usage{Percent: 99.6, Tokens: 1_250_000, Window: 1_000_000}, SegmentOptions{Format: "{tokens}/{window} {bar} {pct}", Shell: "zsh", Warn: 60, Crit: 80}); got != "1.3M/1M ▰▰▰▰▰ 100" {
		t.Errorf("%q", got)
	}
}

func TestStampGarbageCollection(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	os.WriteFile(state, nil, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(state, old, old)
	// A stamp of a process that has exited, and one of a live process.
	dead := filepath.Join(dir, "prompt", "2147483646.stamp")
	live := filepath.Join(dir, "prompt", strconv.Itoa(os.Getppid())+".stamp")
	os.MkdirAll(filepath.Dir(dead), 0o700)
	os.WriteFile(dead, nil, 0o600)
	os.WriteFile(live, nil, 0o600)
	mine, err := StampPath(dir, strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if err := SyncStamp(mine, state, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead shell's stamp was kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a live shell's stamp was removed")
	}
	if st, err := os.Stat(mine); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("own stamp: %v %v", err, st)
	}
	for _, bad := range []string{"", "-1", "../x", "1/2", "abc"} {
		if _, err := StampPath(dir, bad); err == nil {
			t.Errorf("stamp id %q accepted", bad)
		}
	}
}

func TestIndexRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c", IndexFile)
	at := time.Unix(1764500000, 0)
	in := []IndexEntry{
		{Harness: "claude-code", ID: "a", LastActivity: at, Root: "/odd\\dir\\n/new\nline\tx", Title: "tab\there\nnewline"},
		{Harness: "", ID: "skipped"},
	}
	if err := WriteIndex(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadIndex(path)
	if err != nil || len(out) != 1 || out[0] != in[0] {
		t.Fatalf("%v %+v", err, out)
	}
	os.WriteFile(path, []byte("something else\n"), 0o600)
	if _, err := ReadIndex(path); err == nil {
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
	entries := []IndexEntry{{Harness: "claude-code", ID: "abc12345", LastActivity: now, Root: "/home/example/\x1b]0;x\x07",
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

// ReadIndexMatching returns exactly the entries of ReadIndex that keep
// accepts, decoded the same way.
func TestReadIndexMatching(t *testing.T) {
	path := filepath.Join(t.TempDir(), IndexFile)
	at := time.Unix(1764500000, 0)
	in := []IndexEntry{
		{Harness: "claude-code", ID: "ab1", LastActivity: at, Root: "/r\\oot", Title: "t\tone"},
		{Harness: "codex", ID: "ab2", LastActivity: at.Add(-time.Hour), Root: "/r", Title: "two"},
		{Harness: "claude-code", ID: "cd3", LastActivity: at.Add(-2 * time.Hour), Root: "/r", Title: "three"},
	}
	if err := WriteIndex(path, in); err != nil {
		t.Fatal(err)
	}
	all, _ := ReadIndex(path)
	got, err := ReadIndexMatching(path, func(h, id string) bool { return h == "claude-code" && strings.HasPrefix(id, "ab") })
	if err != nil || len(all) != 3 || len(got) != 1 || got[0] != all[0] || got[0] != in[0] {
		t.Fatalf("got %+v %v (all %+v)", got, err, all)
	}
}

// Rewriting an unchanged index only refreshes its mtime (complete's age
// check); a changed one is rewritten.
func TestWriteIndexUnchangedRefreshesMTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), IndexFile)
	in := []IndexEntry{{Harness: "claude-code", ID: "a", LastActivity: time.Unix(1764500000, 0), Root: "/r", Title: "t"}}
	if err := WriteIndex(path, in); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := WriteIndex(path, in); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if st, err := os.Stat(path); err != nil || !st.ModTime().After(old.Add(time.Minute)) || string(after) != string(before) {
		t.Errorf("unchanged index: mtime %v (was %v), content changed: %v", st.ModTime(), old, string(after) != string(before))
	}
	in[0].Title = "new title"
	if err := WriteIndex(path, in); err != nil {
		t.Fatal(err)
	}
	if out, err := ReadIndex(path); err != nil || len(out) != 1 || out[0].Title != "new title" {
		t.Errorf("changed index not rewritten: %+v %v", out, err)
	}
}

// printable's fast path (nothing to change: return s) must agree with the
// full mapping for every input: each rune of the BMP's first part alone
// and inside text, invalid UTF-8, and hostile titles.
func TestPrintableFastPathAgrees(t *testing.T) {
	full := func(s string) string { return strings.Map(printableRune, s) }
	inputs := []string{"", "plain title", "fix: the login bug (café) 🚀", "a\tb\nc\rd", "\x1b[31mred\x1b[0m",
		"bad \xff utf8", "\xc3", "rtl \u202e override", "nbsp\u00a0x", "c1 \u0085 next line", "\u2028sep\u2029"}
	for r := rune(0); r < 0x3000; r++ {
		inputs = append(inputs, string(r), "x"+string(r)+"y")
	}
	for _, s := range inputs {
		if got, want := printable(s), full(s); got != want {
			t.Errorf("printable(%q) = %q, want %q", s, got, want)
		}
	}
}

// The exact lines each shell reads (a regression guard for the
// allocation-free formatting): harness prefix with two harnesses, the
// other directory's base name, zsh's escaped colon, fish's tab.
func TestFormatCandidatesLines(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	entries := []IndexEntry{
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

// printable's one-scan check returns s unchanged exactly when the
// mapping would not change it.
func TestPrintableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", " ", "~", "0", "\x1f", "\x7f", "\x00", "\t", "\x80", "\xff", "é", "\u202e", "\u2066", "日本", "\xe2\x80"}
	for n := 0; n < 50000; n++ {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			if r.IntN(4) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteByte(byte(0x20 + r.IntN(0x5f)))
			}
		}
		s := b.String()
		if got, want := printable(s), strings.Map(printableRune, s); got != want {
			t.Fatalf("printable(%q) = %q, want %q", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		s := strings.Repeat("x", c%9) + string([]byte{byte(c)}) + strings.Repeat("y", 16)
		if got, want := printable(s), strings.Map(printableRune, s); got != want {
			t.Fatalf("byte %#x: %q, want %q", c, got, want)
		}
	}
}

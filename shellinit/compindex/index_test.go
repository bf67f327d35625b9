package compindex

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mapIndexMatching reads what ReadMatching reads, from a mapping:
// the same entries (hostile fields included), the same refusals.
func TestMapIndexMatchingAgrees(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	now := time.Unix(1764500000, 0)
	var entries []Entry
	for i := range 300 {
		entries = append(entries, Entry{Harness: []string{"claude-code", "codex"}[i%2], ID: strings.Repeat(string(rune('a'+i%26)), 8) + "-" + time.Duration(i).String(),
			LastActivity: now.Add(-time.Duration(i) * time.Minute), Root: "/home/example/src/p\t" + string(rune('0'+i%10)), Title: "fix\nthe \\ bug " + strings.Repeat("é", i%5)})
	}
	if err := Write(path, entries); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []func(h, id string) bool{nil, func(h, id string) bool { return h == "codex" && strings.HasPrefix(id, "b") }} {
		want, err := ReadMatching(path, keep)
		if err != nil {
			t.Fatal(err)
		}
		if err := mapIndexMatching(path, keep, func(got []Entry) {
			if !reflect.DeepEqual(got, want) {
				t.Errorf("mapped read differs: %d entries, want %d", len(got), len(want))
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(dir, "empty.tsv")
	os.WriteFile(empty, nil, 0o600)
	if err := mapIndexMatching(empty, nil, func([]Entry) {}); err == nil {
		t.Error("an empty file is not an index")
	}
	other := filepath.Join(dir, "other.tsv")
	os.WriteFile(other, []byte("claude-code\tid\t1\t/r\tt\n"), 0o600)
	if err := mapIndexMatching(other, nil, func([]Entry) {}); err == nil {
		t.Error("a file without the header is not an index")
	}
	if err := mapIndexMatching(filepath.Join(dir, "missing.tsv"), nil, func([]Entry) {}); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// MapSessionCandidates decodes at most Limit entries per group, yet offers
// exactly what SessionCandidates over the whole index offers for an index
// as Write writes it (newest first), with and without a prefix, a
// cap, the current root, one or two harnesses. Lines out of order (a
// hand-edited index) are sorted as SessionCandidates sorts them when
// nothing caps the groups; past a cap only Write's order is trusted.
func TestMapSessionCandidatesAgrees(t *testing.T) {
	dir := t.TempDir()
	sorted := filepath.Join(dir, File)
	now := time.Unix(1764500000, 0)
	var entries []Entry
	for i := range 400 {
		entries = append(entries, Entry{Harness: []string{"claude-code", "codex", "claude-code"}[i%3], ID: strings.Repeat(string(rune('a'+i%7)), 8) + "-" + time.Duration(i).String(),
			LastActivity: now.Add(-time.Duration(i*i%97) * time.Minute), Root: "/home/example/src/p\t" + string(rune('0'+i%4)), Title: "fix\nthe \\ bug " + strings.Repeat("é", i%5)})
	}
	if err := Write(sorted, entries); err != nil {
		t.Fatal(err)
	}
	// The same lines in the order given (not newest first).
	unsorted := filepath.Join(dir, "unsorted.tsv")
	text := indexHeader + "\n"
	for _, e := range entries {
		text += field(e.Harness) + "\t" + field(e.ID) + "\t" + strconv.FormatInt(e.LastActivity.Unix(), 10) + "\t" + field(e.Root) + "\t" + field(e.Title) + "\n"
	}
	text += "bad line\ncodex\tzz\tnot-a-time\t/r\tt\n"
	os.WriteFile(unsorted, []byte(text), 0o600)
	for _, path := range []string{sorted, unsorted} {
		all, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []SessionQuery{
			{Harnesses: []string{"claude-code"}, Root: "/home/example/src/p\t1", Now: now, Limit: 20},
			{Harnesses: []string{"claude-code"}, Root: "/home/example/src/p\t1", Now: now, Limit: 500},
			{Harnesses: []string{"codex"}, Root: "/elsewhere", Now: now, Limit: 7},
			{Harnesses: []string{"claude-code", "codex"}, Root: "/home/example/src/p\t2", Prefix: "bb", Now: now, Limit: 30},
			{Harnesses: []string{"codex", "claude-code"}, Root: "/home/example/src/p\t3", Now: now},
			{Harnesses: []string{"codex"}, Prefix: "zzz", Now: now, Limit: 5},
		} {
			if path == unsorted {
				q.Limit = 0
			}
			want := SessionCandidates(all, q)
			got, err := MapSessionCandidates(path, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, %+v: %d candidates, want %d (%v / %v)", filepath.Base(path), q, len(got), len(want), head(got), head(want))
			}
		}
	}
	if _, err := MapSessionCandidates(filepath.Join(dir, "missing.tsv"), SessionQuery{}); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func head(c []Candidate) []Candidate { return c[:min(len(c), 3)] }

// indexAt finds what strings.Index finds, whichever byte it scans for.
func TestIndexAtAsStringsIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alphabet := "\tab/-\n"
	for n := 0; n < 3000; n++ {
		s := make([]byte, r.IntN(200))
		for i := range s {
			s[i] = alphabet[r.IntN(len(alphabet))]
		}
		needle := make([]byte, 1+r.IntN(5))
		for i := range needle {
			needle[i] = alphabet[r.IntN(len(alphabet))]
		}
		for p := range needle {
			if got, want := indexAt(string(s), string(needle), p), strings.Index(string(s), string(needle)); got != want {
				t.Fatalf("indexAt(%q, %q, %d) = %d, want %d", s, needle, p, got, want)
			}
		}
		if p := rarestByte(string(s), string(needle)); p < 0 || p >= len(needle) {
			t.Fatalf("rarestByte = %d for a needle of %d bytes", p, len(needle))
		}
	}
	if got := indexAt("x\t/home/a\ty", "\t/home/a\t", 3); got != 1 {
		t.Fatalf("indexAt = %d", got)
	}
}

// The footer counts each root's lines; a TAB stops searching once it has
// seen them all (or does not search for a root the footer lacks), with
// the same candidates as a full read.
func TestIndexFooterBoundsTheRootSearch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	now := time.Unix(1764500000, 0)
	var entries []Entry
	for i := range 2000 {
		root := "/home/example/src/other" + strconv.Itoa(i%50)
		if i == 10 || i == 1500 || i == 1999 {
			root = "/home/example/src/rare"
		}
		entries = append(entries, Entry{Harness: []string{"claude-code", "codex"}[i%2], ID: "id" + strconv.Itoa(i),
			LastActivity: now.Add(-time.Duration(i) * time.Minute), Root: root, Title: "t" + strconv.Itoa(i)})
	}
	if err := Write(path, entries); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "\n\t#roots\n") || !strings.Contains(string(data), "\t#root\t3\t/home/example/src/rare\t\n") ||
		!strings.Contains(string(data), "\t#root\t40\t/home/example/src/other7\t\n") {
		t.Fatalf("footer missing or wrong:\n%s", data[len(data)-300:])
	}
	all, err := Read(path)
	if err != nil || len(all) != 2000 {
		t.Fatalf("Read: %d entries, %v", len(all), err)
	}
	for _, q := range []SessionQuery{
		{Harnesses: []string{"claude-code"}, Root: "/home/example/src/rare", Now: now, Limit: 5},
		{Harnesses: []string{"claude-code", "codex"}, Root: "/home/example/src/rare", Now: now, Limit: 5},
		{Harnesses: []string{"codex"}, Root: "/home/example/src/none", Now: now, Limit: 5},
		{Harnesses: []string{"codex"}, Root: "/home/example/src/other3", Prefix: "id1", Now: now, Limit: 5},
	} {
		want := SessionCandidates(all, q)
		got, err := MapSessionCandidates(path, q)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: %v\n got %v\nwant %v", q, err, head(got), head(want))
		}
	}
}

// AppendSessionCandidates writes, byte for byte, what FormatCandidates
// writes for MapSessionCandidates's answer (values prefixed as fish gets
// them): for every shell, hostile titles and ids (controls, bidi marks,
// invalid UTF-8, colons and backslashes), a capped index in order, and an
// index out of order, read in full; on error it leaves b as it was.
func TestAppendSessionCandidatesAsFormatted(t *testing.T) {
	dir := t.TempDir()
	sorted := filepath.Join(dir, File)
	now := time.Unix(1764500000, 0)
	var entries []Entry
	for i := range 300 {
		entries = append(entries, Entry{Harness: []string{"claude-code", "codex", "claude-code"}[i%3],
			ID:           strings.Repeat(string(rune('a'+i%5)), 6) + []string{"", ":x", `\y`, "\x1b[2J"}[i%4] + "-" + strconv.Itoa(i),
			LastActivity: now.Add(-time.Duration(i) * time.Hour),
			Root:         "/home/example/src/p\t" + string(rune('0'+i%4)),
			Title:        "fix\nthe \\ bug\x07 \u202e" + string([]byte{0xff, 'z'}) + strings.Repeat("é", i%5)})
	}
	if err := Write(sorted, entries); err != nil {
		t.Fatal(err)
	}
	unsorted := filepath.Join(dir, "unsorted.tsv")
	text := indexHeader + "\n"
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		text += field(e.Harness) + "\t" + field(e.ID) + "\t" + strconv.FormatInt(e.LastActivity.Unix(), 10) + "\t" + field(e.Root) + "\t" + field(e.Title) + "\n"
	}
	os.WriteFile(unsorted, []byte(text), 0o600)
	queries := []SessionQuery{
		{Harnesses: []string{"claude-code"}, Root: "/home/example/src/p\t1", Now: now, Limit: 20},
		{Harnesses: []string{"claude-code"}, Root: "/elsewhere", Now: now, Limit: 500},
		{Harnesses: []string{"claude-code", "codex"}, Root: "/home/example/src/p\t2", Prefix: "bb", Now: now, Limit: 30},
		{Harnesses: []string{"codex"}, Prefix: "zzz", Now: now, Limit: 5},
		{Harnesses: []string{"codex", "claude-code"}, Root: "/home/example/src/p\t3", Now: now},
		// Out of order, claude-code's group overflows while codex's
		// fills: the whole index is read.
		{Harnesses: []string{"claude-code", "codex"}, Root: "/elsewhere", Now: now, Limit: 20},
	}
	for _, path := range []string{sorted, unsorted} {
		for _, q := range queries {
			for _, shell := range []string{"bash", "zsh", "fish"} {
				for _, pfx := range []string{"", "--resume="} {
					cands, err := MapSessionCandidates(path, q)
					if err != nil {
						t.Fatal(err)
					}
					for i := range cands {
						cands[i].Value = pfx + cands[i].Value
					}
					var want strings.Builder
					if err := FormatCandidates(&want, shell, cands); err != nil {
						t.Fatal(err)
					}
					got, err := AppendSessionCandidates([]byte("kept\n"), shell, path, &q, pfx)
					if err != nil {
						t.Fatal(err)
					}
					if string(got) != "kept\n"+want.String() {
						t.Errorf("%s, %s, %q, %+v: got %d bytes, want %d", filepath.Base(path), shell, pfx, q, len(got)-5, want.Len())
					}
				}
			}
		}
	}
	other := filepath.Join(dir, "other.tsv")
	os.WriteFile(other, []byte("claude-code\tid\t1\t/r\tt\n"), 0o600)
	for _, p := range []string{other, filepath.Join(dir, "missing.tsv")} {
		if got, err := AppendSessionCandidates([]byte("kept"), "zsh", p, &queries[0], ""); err == nil || string(got) != "kept" {
			t.Errorf("%s: %q, %v; want the buffer as it was and an error", filepath.Base(p), got, err)
		}
	}
}

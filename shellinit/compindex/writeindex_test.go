package compindex

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Write writes the lines a stable sort, newest first, gives, each
// field escaped, entries without id or harness left out, whether or not
// the entries come in that order (the caller's slice is left as it was).
func TestWriteIndexBytes(t *testing.T) {
	now := time.Unix(1764500000, 0)
	var entries []Entry
	for i := range 500 {
		entries = append(entries, Entry{Harness: []string{"claude-code", "codex", ""}[i%3], ID: strconv.Itoa(i) + "\\x",
			LastActivity: now.Add(-time.Duration(i/3) * time.Second), Root: "/home/example/p\t" + strconv.Itoa(i%4), Title: "a\r\nb " + strconv.Itoa(i)})
	}
	entries[7].ID = ""
	reference := func(es []Entry) string {
		es = slices.Clone(es)
		sort.SliceStable(es, func(i, j int) bool { return es[i].LastActivity.After(es[j].LastActivity) })
		text := indexHeader + "\n"
		perRoot := map[string]int{}
		for _, e := range es {
			if e.ID != "" && e.Harness != "" {
				text += fieldEscaper.Replace(e.Harness) + "\t" + fieldEscaper.Replace(e.ID) + "\t" + strconv.FormatInt(e.LastActivity.Unix(), 10) +
					"\t" + fieldEscaper.Replace(e.Root) + "\t" + fieldEscaper.Replace(e.Title) + "\n"
				perRoot[fieldEscaper.Replace(e.Root)]++
			}
		}
		// The footer: each root's line count, roots in byte order.
		text += rootsMarker
		for _, root := range slices.Sorted(maps.Keys(perRoot)) {
			text += rootLine + strconv.Itoa(perRoot[root]) + "\t" + root + "\t\n"
		}
		return text
	}
	shuffled := slices.Clone(entries)
	slices.Reverse(shuffled[100:300])
	keep := slices.Clone(shuffled)
	for name, es := range map[string][]Entry{"in order": entries, "out of order": shuffled} {
		path := filepath.Join(t.TempDir(), File)
		if err := Write(path, es); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if string(got) != reference(es) {
			t.Errorf("%s: the index differs from the reference", name)
		}
	}
	if !slices.Equal(shuffled, keep) {
		t.Error("the caller's entries were reordered")
	}
}

// With a digest, the index records it on a tab-led second line (readers
// skip it: they read the same entries), and a later write of the same
// digest only refreshes the file's mtime, without building the index:
// given other entries, the file is left as it was. Another digest, or a
// file that is not what was recorded (cut short, grown, another line, an
// index of no digest), is rewritten.
func TestWriteIndexDigest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	day := time.Unix(1764500000, 0)
	in := []Entry{
		{Harness: "claude-code", ID: "abc1", LastActivity: day, Root: "/home/example/p", Title: "fix the bug"},
		{Harness: "codex", ID: "abc2", LastActivity: day.Add(-time.Hour), Root: "/home/example/q", Title: "tab\there"},
	}
	plain := filepath.Join(dir, "plain.tsv")
	if err := Write(plain, in); err != nil {
		t.Fatal(err)
	}
	if err := WriteDigest(path, in, "d1"); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(plain)
	got, _ := os.ReadFile(path)
	line := listingLine("d1", len(got))
	if string(got) != indexHeader+"\n"+line+string(want[len(indexHeader)+1:]) {
		t.Fatalf("index with digest:\n%s\nwant the plain index with %q after its header", got, line)
	}
	if es, err := Read(path); err != nil || !slices.Equal(es, in) {
		t.Errorf("read: %+v %v, want %+v", es, err, in)
	}
	if err := mapIndexMatching(path, nil, func(es []Entry) {
		if !slices.Equal(es, in) {
			t.Errorf("mapped: %+v, want %+v", es, in)
		}
	}); err != nil {
		t.Errorf("mapped: %v", err)
	}
	q := SessionQuery{Harnesses: []string{"claude-code", "codex"}, Root: "/home/example/q", Prefix: "abc", Now: day, Limit: 10}
	if c, err := MapSessionCandidates(path, q); err != nil || len(c) != 2 || c[0].Value != "abc1" || c[1].Value != "abc2" {
		t.Errorf("candidates from the index with a digest: %+v %v", c, err)
	}

	other := slices.Clone(in)
	other[0].Title = "another title"
	ino := func() uint64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}
	before := ino()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteDigest(path, other, "d1"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if again, _ := os.ReadFile(path); string(again) != string(got) || ino() != before || !st.ModTime().After(old.Add(time.Minute)) {
		t.Errorf("same digest: rewritten (%v) or not refreshed (mtime %v)", string(again) != string(got), st.ModTime())
	}

	check := func(name string, digest string, entries []Entry) {
		t.Helper()
		if err := WriteDigest(path, entries, digest); err != nil {
			t.Fatal(err)
		}
		es, err := Read(path)
		data, _ := os.ReadFile(path)
		if err != nil || !slices.Equal(es, entries) || !strings.Contains(string(data), listingLine(digest, len(data))) {
			t.Errorf("%s: not rewritten: %+v %v", name, es, err)
		}
	}
	check("another digest", "d2", other)
	for name, spoil := range map[string]func([]byte) []byte{
		"cut short": func(b []byte) []byte { return b[:len(b)-3] },
		"grown":     func(b []byte) []byte { return append(b, "codex\tzz\t1\t/r\tt\n"...) },
		"no digest": func(b []byte) []byte {
			return []byte(strings.Replace(string(b), listingLine("d2", len(b)), "", 1))
		},
		"other layout": func(b []byte) []byte {
			return []byte(strings.Replace(string(b), listingTag+listingLayout+"\t", listingTag+"0\t", 1))
		},
		"empty": func([]byte) []byte { return nil },
	} {
		// The file holds other, of d2, spoiled: given in of d2, it is
		// rewritten only if the spoiling is seen.
		os.Remove(path)
		check(name+": before", "d2", other)
		data, _ := os.ReadFile(path)
		if err := os.WriteFile(path, spoil(data), 0o600); err != nil {
			t.Fatal(err)
		}
		check(name, "d2", in)
	}
}

// Freshen refreshes only an index that records the digest asked.
func TestFreshenIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	in := []Entry{{Harness: "codex", ID: "abc", LastActivity: time.Unix(1764500000, 0), Root: "/r", Title: "t"}}
	if fresh, err := Freshen(path, "d1"); fresh || err != nil {
		t.Errorf("no index: %v %v", fresh, err)
	}
	if err := WriteDigest(path, in, "d1"); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	for _, d := range []string{"d2", "", "d\t1", "d"} {
		if fresh, err := Freshen(path, d); fresh || err != nil {
			t.Errorf("digest %q: %v %v", d, fresh, err)
		}
	}
	if st, _ := os.Stat(path); st.ModTime().After(old.Add(time.Minute)) {
		t.Error("refreshed for another digest")
	}
	if fresh, err := Freshen(path, "d1"); !fresh || err != nil {
		t.Errorf("same digest: %v %v", fresh, err)
	}
	if st, _ := os.Stat(path); !st.ModTime().After(old.Add(time.Minute)) {
		t.Error("not refreshed")
	}
}

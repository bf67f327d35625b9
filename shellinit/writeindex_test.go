package shellinit

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
)

// WriteIndex writes the lines a stable sort, newest first, gives, each
// field escaped, entries without id or harness left out, whether or not
// the entries come in that order (the caller's slice is left as it was).
func TestWriteIndexBytes(t *testing.T) {
	now := time.Unix(1764500000, 0)
	var entries []IndexEntry
	for i := range 500 {
		entries = append(entries, IndexEntry{Harness: []string{"claude-code", "codex", ""}[i%3], ID: strconv.Itoa(i) + "\\x",
			LastActivity: now.Add(-time.Duration(i/3) * time.Second), Root: "/home/example/p\t" + strconv.Itoa(i%4), Title: "a\r\nb " + strconv.Itoa(i)})
	}
	entries[7].ID = ""
	reference := func(es []IndexEntry) string {
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
	for name, es := range map[string][]IndexEntry{"in order": entries, "out of order": shuffled} {
		path := filepath.Join(t.TempDir(), IndexFile)
		if err := WriteIndex(path, es); err != nil {
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

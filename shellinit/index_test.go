package shellinit

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// MapIndexMatching reads what ReadIndexMatching reads, from a mapping:
// the same entries (hostile fields included), the same refusals.
func TestMapIndexMatchingAgrees(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, IndexFile)
	now := time.Unix(1764500000, 0)
	var entries []IndexEntry
	for i := range 300 {
		entries = append(entries, IndexEntry{Harness: []string{"claude-code", "codex"}[i%2], ID: strings.Repeat(string(rune('a'+i%26)), 8) + "-" + time.Duration(i).String(),
			LastActivity: now.Add(-time.Duration(i) * time.Minute), Root: "/home/example/src/p\t" + string(rune('0'+i%10)), Title: "fix\nthe \\ bug " + strings.Repeat("é", i%5)})
	}
	if err := WriteIndex(path, entries); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []func(h, id string) bool{nil, func(h, id string) bool { return h == "codex" && strings.HasPrefix(id, "b") }} {
		want, err := ReadIndexMatching(path, keep)
		if err != nil {
			t.Fatal(err)
		}
		got, unmap, err := MapIndexMatching(path, keep)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("mapped read differs: %d entries, want %d", len(got), len(want))
		}
		unmap()
	}
	empty := filepath.Join(dir, "empty.tsv")
	os.WriteFile(empty, nil, 0o600)
	if _, _, err := MapIndexMatching(empty, nil); err == nil {
		t.Error("an empty file is not an index")
	}
	other := filepath.Join(dir, "other.tsv")
	os.WriteFile(other, []byte("claude-code\tid\t1\t/r\tt\n"), 0o600)
	if _, _, err := MapIndexMatching(other, nil); err == nil {
		t.Error("a file without the header is not an index")
	}
	if _, _, err := MapIndexMatching(filepath.Join(dir, "missing.tsv"), nil); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

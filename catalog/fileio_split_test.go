package catalog

import (
	"path/filepath"
	"slices"
	"testing"
)

// splitPath and joinNames give what filepath's Dir, Base and Join give,
// clean paths or not.
func TestSplitAndJoinMatchFilepath(t *testing.T) {
	paths := []string{"/a/b.jsonl", "/a", "/", "", "a/b", "/a//b", "/a/./b", "/a/../b", "/a/b/", "/a/.", "/a/..", "/.a/..b/...",
		"/home/example/.claude/projects/-home-example-p/0f.jsonl", "//a", "/a/b/.", "/a/.b", "/a/b..", "relative", "."}
	for _, p := range paths {
		d, b := splitPath(p)
		if d != filepath.Dir(p) || b != filepath.Base(p) {
			t.Errorf("splitPath(%q) = %q, %q; want %q, %q", p, d, b, filepath.Dir(p), filepath.Base(p))
		}
		names := []string{"x.jsonl", "", ".", "..", "a/b", ".hidden"}
		var want []string
		for _, n := range names {
			want = append(want, filepath.Join(p, n))
		}
		if got := joinNames(nil, p, names); !slices.Equal(got, want) {
			t.Errorf("joinNames(%q) = %q, want %q", p, got, want)
		}
	}
}

package scan

import (
	"path/filepath"
	"slices"
	"testing"
)

// SplitPath and JoinNames give what filepath's Dir, Base and Join give,
// clean paths or not.
func TestSplitAndJoinMatchFilepath(t *testing.T) {
	paths := []string{"/a/b.jsonl", "/a", "/", "", "a/b", "/a//b", "/a/./b", "/a/../b", "/a/b/", "/a/.", "/a/..", "/.a/..b/...",
		"/home/example/.claude/projects/-home-example-p/0f.jsonl", "//a", "/a/b/.", "/a/.b", "/a/b..", "relative", "."}
	for _, p := range paths {
		d, b := SplitPath(p)
		if d != filepath.Dir(p) || b != filepath.Base(p) {
			t.Errorf("SplitPath(%q) = %q, %q; want %q, %q", p, d, b, filepath.Dir(p), filepath.Base(p))
		}
		names := []string{"x.jsonl", "", ".", "..", "a/b", ".hidden"}
		var want []string
		for _, n := range names {
			want = append(want, filepath.Join(p, n))
		}
		if got := JoinNames(nil, p, names); !slices.Equal(got, want) {
			t.Errorf("JoinNames(%q) = %q, want %q", p, got, want)
		}
	}
}

// PathSplitter gives SplitPath's answers whatever came before: every
// path after every other (the same directory, another, a subdirectory,
// a prefix that is not a directory, unclean ones).
func TestPathSplitterMatchesSplitPath(t *testing.T) {
	paths := []string{"/a/b.jsonl", "/a/c.jsonl", "/a/b/c.jsonl", "/a/b", "/a/b/", "/a/.", "/a/..", "/a//b", "/ab/c", "/a",
		"/", "", "a/b", "/a/./b", "/a/b/../c", "/home/example/p/0f.jsonl", "/home/example/p/10.jsonl", "/home/example/p2/1.jsonl",
		"/home/example/p/x/", "relative", "."}
	for _, first := range paths {
		for _, p := range paths {
			var sp PathSplitter
			sp.Split(first)
			d, b := sp.Split(p)
			if wd, wb := SplitPath(p); d != wd || b != wb {
				t.Errorf("after %q: split(%q) = %q, %q; want %q, %q", first, p, d, b, wd, wb)
			}
		}
	}
}

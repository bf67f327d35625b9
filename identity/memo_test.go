package identity

import (
	"os"
	"path/filepath"
	"testing"
)

// Memo answers what Resolve answers, for every kind of path, whatever was
// resolved before: plain directories, symlinked parents (absolute and
// relative targets, chains), a symlink as the last component, files,
// missing paths, a symlink loop, "..", trailing slashes, NFD names and
// relative paths.
func TestMemoMatchesResolve(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("src/a/b/c")
	mk("src/caf\u0065\u0301/x") // NFD
	mk("other/deep/er")
	mk("src/deep/er")                             // where "through" leads if its ".." were taken lexically
	link(filepath.Join(root, "src/a"), "abs")     // absolute target
	link("src/a/b", "rel")                        // relative target
	link("abs", "chain")                          // a link to a link
	link(filepath.Join(root, "other"), "src/a/o") // a link inside a tree
	link("nowhere", "dangling")
	link("../other/deep", "src/up")                 // ".." against the resolved parent
	link("src/up/../deep/er", "through")            // ".." after a link
	link(filepath.Join(root, "src/file"), "tofile") // a link to a file
	link(filepath.Join(root, "src/up/../deep"), "absup")
	link("../..//other/./deep", "src/a/twoup")
	link("loop2", "loop1")
	link("loop1", "loop2")
	if err := os.WriteFile(filepath.Join(root, "src/file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	paths := []string{
		"src/a/b/c", "src/a/b/c/", "src/a/b", "src", "", "abs/b/c", "abs/b", "abs", "rel/c", "rel",
		"chain/b/c", "chain", "src/a/o/deep/er", "src/a/o", "src/a/o/deep", "dangling", "dangling/x",
		"loop1", "loop1/x", "src/file", "src/file/x", "src/missing", "src/missing/deeper", "src/a/b/../b/c",
		"src/a/b/c/../../..", "abs/../other", "src/caf\u0065\u0301/x", "src/caf\u00e9/x",
		"src/up", "src/up/er", "through", "abs/o/deep", "rel/../o", "tofile", "tofile/x", "absup/er", "src/a/twoup/er",
	}
	abs := func(p string) string {
		return filepath.Join(root, p) + map[bool]string{true: "/"}[len(p) > 0 && p[len(p)-1] == '/']
	}
	orders := map[string][]string{"given": paths, "reversed": nil}
	for i := len(paths) - 1; i >= 0; i-- {
		orders["reversed"] = append(orders["reversed"], paths[i])
	}
	for name, order := range orders {
		var m Memo
		for round := range 2 {
			for _, p := range order {
				if got, want := m.Path(abs(p)), Resolve(abs(p)).Path; got != want {
					t.Errorf("%s, round %d: %q: memo %q, Resolve %q", name, round, p, got, want)
				}
			}
		}
		for _, p := range []string{"/", "/..", "relative/dir", "."} {
			if got, want := m.Path(p), Resolve(p).Path; got != want {
				t.Errorf("%s: %q: memo %q, Resolve %q", name, p, got, want)
			}
		}
	}
}

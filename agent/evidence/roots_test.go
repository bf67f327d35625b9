package evidence

import (
	"os"
	"path/filepath"
	"testing"
)

// The memo answers what RepoOf answers, whatever order directories are
// asked in: nested repositories, a directory above any repository, and
// siblings that share a parent already walked.
func TestRootMemoMatchesRepoOf(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string) string {
		d := filepath.Join(base, rel)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	repo := mk("outer")
	mk("outer/.git")
	os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:org/outer.git\n"), 0o644)
	inner := mk("outer/a/inner")
	mk("outer/a/inner/.git")
	os.WriteFile(filepath.Join(inner, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/org/inner\n"), 0o644)
	dirs := []string{mk("outer/a/inner/x/y"), mk("outer/a/b"), mk("outer/a"), inner, repo, mk("plain/p1"), mk("plain/p2"), mk("outer/a/inner/z"), base}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}, {8, 7, 6, 5, 4, 3, 2, 1, 0}} {
		m := &RootMemo{}
		for _, i := range order {
			_, want := RepoOf(dirs[i])
			if got := m.Origin(dirs[i]); got != want {
				t.Errorf("origin(%s) = %q, want %q", dirs[i], got, want)
			}
		}
	}
	shared := &RootMemo{}
	a, b := RootMemo{Shared: shared}, RootMemo{Shared: shared}
	if a.Get(repo) != b.Get(repo) || len(shared.roots) != 1 {
		t.Errorf("readers sharing a memo resolved %d roots, want 1", len(shared.roots))
	}
	if got, want := a.Origin(inner), "github.com/org/inner"; got != want {
		t.Errorf("origin(inner) = %q, want %q", got, want)
	}
}

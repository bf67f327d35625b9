package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndBacksUp(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := WriteBytes(p, []byte("new"), Options{Backup: ".bak"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if b, _ := os.ReadFile(p + ".bak"); string(b) != "old" {
		t.Errorf("backup %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode changed to %v", st.Mode().Perm())
	}
	assertNoTemp(t, filepath.Dir(p))
}

func TestNewFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	if err := WriteBytes(p, []byte("{}"), Options{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
}

func TestFailuresLeaveOriginal(t *testing.T) {
	boom := errors.New("boom")
	for name, inject := range map[string]func(){
		"fill":   func() {},
		"sync":   func() { syncFile = func(*os.File) error { return boom } },
		"rename": func() { rename = func(string, string) error { return boom } },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() { syncFile = func(f *os.File) error { return f.Sync() }; rename = os.Rename }()
			inject()
			p := filepath.Join(t.TempDir(), "f")
			os.WriteFile(p, []byte("original"), 0o600)
			err := Write(p, Options{}, func(w io.Writer) error {
				w.Write([]byte("half"))
				if name == "fill" {
					return boom
				}
				return nil
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(p); string(b) != "original" {
				t.Errorf("original changed: %q", b)
			}
			assertNoTemp(t, filepath.Dir(p))
		})
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if len(e.Name()) > 0 && e.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestNoSyncSkipsFsync(t *testing.T) {
	calls := 0
	syncFile = func(f *os.File) error { calls++; return f.Sync() }
	defer func() { syncFile = func(f *os.File) error { return f.Sync() } }()
	p := filepath.Join(t.TempDir(), "state.json")
	if err := WriteBytes(p, []byte("{}"), Options{NoSync: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{}" || calls != 0 {
		t.Errorf("content %q, %d fsyncs", b, calls)
	}
	WriteBytes(p, []byte("{}"), Options{})
	if calls != 1 {
		t.Errorf("default write: %d fsyncs, want 1", calls)
	}
}

// A dotfile manager's symlinked settings file is written through: the
// target gets the new content (temp file and backup next to the target),
// the link stays a link.
func TestWriteFollowsSymlink(t *testing.T) {
	home, dots := t.TempDir(), t.TempDir()
	target := filepath.Join(dots, "settings.json")
	os.WriteFile(target, []byte("old"), 0o640)
	// A relative link through a second link, as stow and chezmoi make.
	os.Symlink(target, filepath.Join(dots, "hop.json"))
	link := filepath.Join(home, "settings.json")
	rel, _ := filepath.Rel(home, filepath.Join(dots, "hop.json"))
	if err := os.Symlink(rel, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(link, []byte("new"), Options{Backup: ".bak"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced by a regular file (%v)", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target content %q", b)
	}
	if b, _ := os.ReadFile(target + ".bak"); string(b) != "old" {
		t.Errorf("backup next to the target %q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v", st.Mode().Perm())
	}
	assertNoTemp(t, home)
	assertNoTemp(t, dots)
}

// A dangling link is created at its target, not replaced.
func TestWriteDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	os.Symlink("real.json", link)
	if err := WriteBytes(link, []byte("x"), Options{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("link replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "x" {
		t.Errorf("target %q", b)
	}
}

func TestWriteSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink("b", a)
	os.Symlink("a", b)
	if err := WriteBytes(a, []byte("x"), Options{}); err == nil {
		t.Fatal("loop accepted")
	}
	if st, _ := os.Lstat(a); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("link replaced")
	}
}

package procfs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSelf reads this test process through the machine's /proc.
func TestSelf(t *testing.T) {
	var fs FS
	if !fs.Available() {
		t.Skip("no /proc")
	}
	pid := os.Getpid()
	if argv := fs.Argv(pid); len(argv) == 0 || filepath.Base(argv[0]) != filepath.Base(os.Args[0]) {
		t.Errorf("argv %q", argv)
	}
	if wd, _ := os.Getwd(); fs.Cwd(pid) != wd {
		t.Errorf("cwd %q, want %q", fs.Cwd(pid), wd)
	}
	if st := fs.StartTime(pid); st.IsZero() || time.Since(st) > time.Hour || time.Until(st) > 5*time.Second {
		t.Errorf("start time %v", st)
	}
	if v, ok := fs.Env(pid, "PATH"); !ok || v == "" {
		t.Errorf("PATH not read from environ")
	}
	f, err := os.CreateTemp(t.TempDir(), "x*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := false
	for _, p := range fs.OpenFiles(pid) {
		found = found || p == f.Name()
	}
	if !found || fs.OpenBy(map[string]bool{f.Name(): true})[f.Name()] == 0 {
		t.Errorf("open file %s not found", f.Name())
	}
	if (FS{Root: filepath.Join(t.TempDir(), "none")}).Available() {
		t.Error("a missing root is available")
	}
}

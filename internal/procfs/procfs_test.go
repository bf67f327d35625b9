package procfs

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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

// OpenBy finds each path in the first process (by pid) holding it, over
// every descriptor: links that are no files (pipes), processes without
// an fd directory, entries that are no pid, and a process with more
// descriptors than one directory read returns.
func TestOpenByFakeProc(t *testing.T) {
	root := t.TempDir()
	fd := func(pid, n, target string) {
		dir := filepath.Join(root, pid, "fd")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	fd("12", "0", "/home/example/a.jsonl")
	fd("12", "1", "pipe:[123]")
	fd("12", "3", "/home/example/other")
	fd("30", "5", "/home/example/a.jsonl")
	fd("30", "6", "/home/example/c d.jsonl")
	os.MkdirAll(filepath.Join(root, "40"), 0o755) // no fd directory
	os.MkdirAll(filepath.Join(root, "self", "fd"), 0o755)
	fd("self", "9", "/home/example/self.jsonl")
	for i := range 1500 {
		fd("77", strconv.Itoa(i), "/home/example/many/"+strconv.Itoa(i))
	}
	fd("77", "1500", "/home/example/last.jsonl")
	want := map[string]int{"/home/example/a.jsonl": 12, "/home/example/c d.jsonl": 30, "/home/example/last.jsonl": 77}
	paths := map[string]bool{"/home/example/self.jsonl": true, "/home/example/none.jsonl": true, "pipe:[124]": true}
	for p := range want {
		paths[p] = true
	}
	if got := (FS{Root: root}).OpenBy(paths); !maps.Equal(got, want) {
		t.Errorf("OpenBy: %v, want %v", got, want)
	}
	if got := (FS{Root: root}).OpenBy(nil); len(got) != 0 {
		t.Errorf("OpenBy(nil): %v", got)
	}
}

// The zero FS is the machine's /proc only where the OS has one; a Root is
// read everywhere. Elsewhere the zero FS lists nothing, so callers take
// their no-/proc paths.
func TestSupported(t *testing.T) {
	if !(FS{Root: t.TempDir()}).Supported() {
		t.Error("an FS with a Root is not Supported")
	}
	if got, want := (FS{}).Supported(), runtime.GOOS == "linux"; got != want {
		t.Errorf("FS{}.Supported() = %v on %s", got, runtime.GOOS)
	}
	if !(FS{}).Supported() && ((FS{}).PIDs() != nil || (FS{}).Available()) {
		t.Error("an unsupported FS read something")
	}
}

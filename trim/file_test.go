package trim

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

var keepAll = Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj"}}

// bigSession has Reads of large files under the kept path, so a keep trim
// writes well over the write buffer (several write calls).
func bigSession() string {
	b := newTB("2.1.332")
	for i := 0; i < 12; i++ {
		b.turn(fmt.Sprintf("turn %d", i), strings.Repeat(fmt.Sprintf("line %d of a big file\n", i), 4000),
			fmt.Sprintf("Read:/home/example/src/proj/f%d.go", i), "Bash:make")
	}
	return b.String()
}

func expected(t *testing.T, in string, opts Options) string {
	t.Helper()
	out, _, err := trimString(t, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeSession(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "4a3624db-9f07-42fe-a7f0-a27427d60850.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dirListing lists a directory's names, to catch stray temporary files.
func dirListing(t *testing.T, dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestFileBackupRotationAndRestore(t *testing.T) {
	b, _ := session("2.0.77")
	orig := b.String()
	path := writeSession(t, orig)

	rep, err := File(path, Options{Policy: PolicyFit, FitTokens: 1500}, false)
	if err != nil {
		t.Fatal(err)
	}
	first := readFile(t, path)
	if !rep.Changed || rep.Backup != path+".bak" || readFile(t, path+".bak") != orig || first == orig {
		t.Fatalf("first trim: %+v", rep)
	}
	if rep.BytesAfter != int64(len(first)) || rep.BytesBefore != int64(len(orig)) {
		t.Errorf("byte counts %d/%d, file %d/%d", rep.BytesBefore, rep.BytesAfter, len(orig), len(first))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the original 0640", st.Mode().Perm())
	}
	if _, err := File(path, Options{Policy: PolicyKeep, KeepPaths: []string{"/nowhere"}}, false); err != nil {
		t.Fatal(err)
	}
	second := readFile(t, path)
	if readFile(t, path+".bak") != first || readFile(t, path+".bak.1") != orig {
		t.Fatal("second trim did not rotate the first backup to .bak.1")
	}
	// Nothing left to do: no write, no new backup.
	rep, err = File(path, Options{Policy: PolicyKeep, KeepPaths: []string{"/nowhere"}}, false)
	if err != nil || rep.Changed || rep.Backup != "" || readFile(t, path) != second {
		t.Fatalf("idempotent trim: %v %+v", err, rep)
	}
	if _, err := os.Stat(path + ".bak.2"); err == nil {
		t.Error("a no-op trim rotated backups")
	}

	kept, err := Restore(path)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != first || readFile(t, kept.Kept) != second {
		t.Fatalf("restore: current %q kept %q", readFile(t, path)[:40], kept.Kept)
	}
	if readFile(t, path+".bak.1") != orig {
		t.Error("restore touched older backups")
	}
	want := []string{filepath.Base(path), filepath.Base(path) + ".bak", filepath.Base(path) + ".bak.1",
		filepath.Base(path) + ".pre-restore"}
	if got := dirListing(t, filepath.Dir(path)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("directory: %v, want %v", got, want)
	}
}

func TestFileDryRunWritesNothing(t *testing.T) {
	b, _ := session("2.1.332")
	orig := b.String()
	path := writeSession(t, orig)
	rep, err := File(path, keepAll, true)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.DryRun || !rep.Changed || rep.BytesAfter != int64(len(expected(t, orig, keepAll))) {
		t.Errorf("dry run report: %+v", rep)
	}
	if readFile(t, path) != orig {
		t.Error("dry run changed the file")
	}
	if got := dirListing(t, filepath.Dir(path)); len(got) != 1 {
		t.Errorf("dry run left files: %v", got)
	}
}

func TestFileLock(t *testing.T) {
	b, _ := session("2.1.332")
	path := writeSession(t, b.String())
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := File(path, keepAll, false); !errors.Is(err, ErrLocked) {
		t.Fatalf("second trim while locked: %v", err)
	}
	unlock()
	if _, err := File(path, keepAll, false); err != nil {
		t.Fatalf("after unlock: %v", err)
	}
}

func TestFileRefusesWhenAppendedDuringTrim(t *testing.T) {
	b, _ := session("2.1.332")
	orig := b.String()
	path := writeSession(t, orig)
	extra := `{"type":"last-prompt","lastPrompt":"x","sessionId":"s"}` + "\n"
	defer func(s func(string)) { ops.step = s }(ops.step)
	ops.step = func(name string) {
		if name == "validated" {
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(extra)
			f.Close()
		}
	}
	if _, err := File(path, keepAll, false); !errors.Is(err, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	if readFile(t, path) != orig+extra {
		t.Error("the appended record was lost")
	}
	if got := dirListing(t, filepath.Dir(path)); len(got) != 1 {
		t.Errorf("left files: %v", got)
	}
}

// TestFaultInjection fails each step of the write path and checks that the
// original is untouched, earlier backups are intact and no temporary file
// is left behind.
func TestFaultInjection(t *testing.T) {
	orig := bigSession()
	boom := errors.New("injected failure")
	type inject func(o *fileOps)
	failWriteAfter := func(n int) inject {
		return func(o *fileOps) {
			calls := 0
			o.write = func(f *os.File, b []byte) (int, error) {
				calls++
				if calls > n {
					half := len(b) / 2
					f.Write(b[:half])
					return half, boom
				}
				return f.Write(b)
			}
		}
	}
	failRenameCall := func(n int) inject {
		return func(o *fileOps) {
			calls := 0
			o.rename = func(a, b string) error {
				calls++
				if calls == n {
					return boom
				}
				return os.Rename(a, b)
			}
		}
	}
	cases := map[string]inject{
		"first write":     failWriteAfter(0),
		"third write":     failWriteAfter(2),
		"fsync":           func(o *fileOps) { o.sync = func(*os.File) error { return boom } },
		"backup rotation": failRenameCall(1),
		"final rename":    failRenameCall(2),
		"link fails, copy fails": func(o *fileOps) {
			o.link = func(string, string) error { return boom }
			calls := 0
			o.sync = func(f *os.File) error {
				if calls++; calls == 2 {
					return boom
				}
				return f.Sync()
			}
		},
		"link fails, copy succeeds": func(o *fileOps) { o.link = func(string, string) error { return boom } },
		"final rename with no link": func(o *fileOps) { o.link = func(string, string) error { return boom }; failRenameCall(3)(o) },
	}
	for name, inj := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeSession(t, orig)
			// An earlier backup that must survive whatever happens.
			os.WriteFile(path+".bak", []byte("previous backup\n"), 0o600)
			saved := ops
			defer func() { ops = saved }()
			inj(&ops)
			_, err := File(path, keepAll, false)
			ops = saved
			got := readFile(t, path)
			want := expected(t, orig, keepAll)
			switch {
			case err == nil:
				// Only the "copy succeeds" case may succeed; then it must be complete.
				if got != want || readFile(t, path+".bak") != orig || readFile(t, path+".bak.1") != "previous backup\n" {
					t.Fatal("succeeded with wrong content or backups")
				}
			case got != orig:
				t.Fatalf("failed (%v) but the original changed", err)
			default:
				if !errors.Is(err, boom) {
					t.Errorf("error does not carry the cause: %v", err)
				}
				// The old backup is at .bak or rotated to .bak.1, never lost.
				b0, _ := os.ReadFile(path + ".bak")
				b1, _ := os.ReadFile(path + ".bak.1")
				if string(b0) != "previous backup\n" && string(b1) != "previous backup\n" {
					t.Error("the previous backup was lost")
				}
				if string(b0) != "previous backup\n" && string(b0) != orig && b0 != nil {
					t.Errorf(".bak holds neither the old backup nor the original")
				}
			}
			for _, n := range dirListing(t, filepath.Dir(path)) {
				if strings.Contains(n, ".trim-") || strings.Contains(n, ".tmp-") {
					t.Errorf("temporary file left behind: %s", n)
				}
			}
		})
	}
}

// TestKillDuringTrim runs the trim in a child process (this test binary)
// and kills it with SIGKILL at each step of the write path: mid-write,
// after the write, after fsync, after validation, after the backup and
// after the rename. Whatever the moment, the session file is the complete
// original or the complete trimmed file, and a backup, when present,
// equals the original.
func TestKillDuringTrim(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	orig := bigSession()
	want := expected(t, orig, keepAll)
	for _, point := range []string{"mid-write", "written", "synced", "validated", "backed-up", "renamed"} {
		t.Run(point, func(t *testing.T) {
			path := writeSession(t, orig)
			cmd := exec.Command(os.Args[0], "-test.run=^TestTrimChild$", "-test.v")
			cmd.Env = append(os.Environ(), "TETHER_TRIM_CHILD_PATH="+path, "TETHER_TRIM_CHILD_STOP="+point)
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			reached := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if sc.Text() == "STOPPED "+point {
						reached <- true
						return
					}
				}
				reached <- false
			}()
			select {
			case ok := <-reached:
				if !ok {
					cmd.Wait()
					t.Fatal("child ended without reaching the stop point")
				}
			case <-time.After(30 * time.Second):
				t.Fatal("child did not reach the stop point")
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			got := readFile(t, path)
			switch got {
			case orig:
			case want:
				if readFile(t, path+".bak") != orig {
					t.Fatal("trimmed file in place but the backup is not the original")
				}
			default:
				t.Fatalf("after a kill at %s the session is neither the original nor the trimmed file (%d bytes)", point, len(got))
			}
			if bak, err := os.ReadFile(path + ".bak"); err == nil && string(bak) != orig {
				t.Fatal("backup differs from the original")
			}
			// The dead process's lock is gone: a new trim completes.
			rep, err := File(path, keepAll, false)
			if err != nil {
				t.Fatalf("trim after the kill: %v", err)
			}
			if readFile(t, path) != want {
				t.Fatalf("trim after the kill produced the wrong content (changed=%v)", rep.Changed)
			}
			for _, n := range dirListing(t, filepath.Dir(path)) {
				if strings.Contains(n, ".trim-") || strings.HasSuffix(n, ".lock") {
					t.Errorf("left by the killed trim and not cleaned up: %s", n)
				}
			}
		})
	}
}

// TestTrimChild is the child half of TestKillDuringTrim.
func TestTrimChild(t *testing.T) {
	path, stop := os.Getenv("TETHER_TRIM_CHILD_PATH"), os.Getenv("TETHER_TRIM_CHILD_STOP")
	if path == "" {
		t.Skip("child process of TestKillDuringTrim")
	}
	park := func() {
		fmt.Printf("STOPPED %s\n", stop)
		os.Stdout.Sync()
		time.Sleep(time.Hour)
	}
	if stop == "mid-write" {
		calls := 0
		ops.write = func(f *os.File, b []byte) (int, error) {
			calls++
			if calls == 2 {
				f.Write(b[:len(b)/2])
				park()
			}
			return f.Write(b)
		}
	}
	ops.step = func(name string) {
		if name == stop {
			park()
		}
	}
	if _, err := File(path, keepAll, false); err != nil {
		t.Fatal(err)
	}
	fmt.Println("STOPPED " + stop) // never reached for points before "renamed"
	if stop != "renamed" {
		t.Fatal("stop point not reached")
	}
}

func TestFileThroughSymlinkAndLongRecords(t *testing.T) {
	b := newTB("2.0.77")
	b.turn("one", strings.Repeat("y", 3<<20), "Read:/home/example/src/proj/big.txt", "Bash:make")
	b.turn("two", "ok")
	orig := b.String()
	path := writeSession(t, orig)
	link := filepath.Join(t.TempDir(), "link.jsonl")
	os.Symlink(path, link)
	if _, err := File(link, keepAll, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	got := readFile(t, path)
	if got != expected(t, orig, keepAll) || !strings.Contains(got, strings.Repeat("y", 3<<20)) {
		t.Error("the 3 MiB record was not copied intact")
	}
	checkCopied(t, orig, got)
}

package trim

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Issue 13.2: the backup of a symlinked transcript lives next to its
// target, and --restore finds it there.
func TestRestoreThroughSymlink(t *testing.T) {
	b, _ := session("2.0.77")
	orig := b.String()
	path := writeSession(t, orig)
	linkDir := t.TempDir()
	link := filepath.Join(linkDir, filepath.Base(path))
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	rep, err := File(link, keepAll, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backup != path+".bak" || BackupPath(link) != path+".bak" {
		t.Fatalf("backup %q / BackupPath %q, want next to the target %s", rep.Backup, BackupPath(link), path)
	}
	res, err := Restore(link)
	if err != nil {
		t.Fatalf("restore through the link: %v", err)
	}
	if readFile(t, path) != orig {
		t.Error("restore did not put the original back")
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if res.Kept != path+".pre-restore" {
		t.Errorf("kept %q, want next to the target", res.Kept)
	}
	if got := dirListing(t, linkDir); len(got) != 1 {
		t.Errorf("files written next to the link: %v", got)
	}
}

// Issue 13.6: --fit validates the input chain as --keep does.
func TestFitRefusesParentCycle(t *testing.T) {
	b := newTB("2.1.332")
	first := b.prompt("hello")
	last := b.text(b.newMessage(), "hi")
	var lines []string
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if gjson.Get(l, "uuid").Str == first {
			l, _ = sjson.Set(strings.TrimSuffix(l, "\n"), "parentUuid", last)
			l += "\n"
		}
		lines = append(lines, l)
	}
	in := strings.Join(lines, "")
	path := writeSession(t, in)
	for _, o := range []Options{keepAll, {Policy: PolicyFit, FitTokens: 100000}} {
		// The input is refused as it is read, before any output exists.
		_, err := File(path, o, false)
		if err == nil || !strings.Contains(err.Error(), "cycle") || strings.Contains(err.Error(), "trimmed transcript") {
			t.Errorf("%s policy on a parentUuid cycle: %v, want the input refused for its cycle", o.Policy, err)
		}
		if readFile(t, path) != in {
			t.Fatal("file changed")
		}
	}
}

// Issue 13.7: no lock file stays next to the transcript, and temporary
// files of dead trims are removed by the next trim in the directory.
func TestNoLeftoversAfterTrim(t *testing.T) {
	b, _ := session("2.1.332")
	path := writeSession(t, b.String())
	dir := filepath.Dir(path)
	other := filepath.Join(dir, ".0d6f7d3e-0000-4000-8000-000000000000.jsonl.trim-123")
	own := filepath.Join(dir, "."+filepath.Base(path)+".trim-456")
	copyTmp := filepath.Join(dir, "."+filepath.Base(path)+".bak.tmp-789")
	for _, p := range []string{other, own, copyTmp} {
		os.WriteFile(p, []byte("partial"), 0o600)
	}
	if _, err := File(path, keepAll, false); err != nil {
		t.Fatal(err)
	}
	for _, n := range dirListing(t, dir) {
		if strings.HasSuffix(n, ".lock") || strings.Contains(n, ".trim-") || strings.Contains(n, ".tmp-") {
			t.Errorf("left in the projects directory: %s", n)
		}
	}
	if _, err := Restore(path); err != nil {
		t.Fatal(err)
	}
	for _, n := range dirListing(t, dir) {
		if strings.HasSuffix(n, ".lock") {
			t.Errorf("restore left %s", n)
		}
	}
}

func TestStaleTempsReportAndRemove(t *testing.T) {
	b, _ := session("2.1.332")
	path := writeSession(t, b.String())
	dir := filepath.Dir(path)
	stale := filepath.Join(dir, "."+filepath.Base(path)+".trim-1")
	os.WriteFile(stale, []byte("partial"), 0o600)
	os.WriteFile(path+".lock", nil, 0o600)
	got := Leftovers(dir)
	if len(got) != 2 {
		t.Fatalf("Leftovers: %v, want the temp and the lock", got)
	}
	// A trim in progress (lock held) is not a leftover.
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := Leftovers(dir); len(got) != 0 {
		t.Errorf("leftovers of a live trim reported: %v", got)
	}
	unlock() // removes the lock file: leave a dead one again
	os.WriteFile(path+".lock", nil, 0o600)
	if n, err := RemoveLeftovers(dir); err != nil || n != 2 {
		t.Fatalf("RemoveLeftovers: %d %v", n, err)
	}
	if got := dirListing(t, dir); len(got) != 1 {
		t.Errorf("after removal: %v", got)
	}
}

// Issue 14.13: a second restore makes no identical .pre-restore, and a
// restore names the file holding turns written after the trim.
func TestRestoreTwiceAndAddedTurns(t *testing.T) {
	b, _ := session("2.1.332")
	orig := b.String()
	path := writeSession(t, orig)
	if _, err := File(path, keepAll, false); err != nil {
		t.Fatal(err)
	}
	added := `{"type":"user","uuid":"added-1","parentUuid":null,"message":{"role":"user","content":"later"}}` + "\n"
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(added)
	f.Close()
	res, err := Restore(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Kept != path+".pre-restore" || !strings.Contains(readFile(t, res.Kept), "added-1") {
		t.Fatalf("first restore: %+v", res)
	}
	res, err = Restore(path)
	if err != nil {
		t.Fatal(err)
	}
	if !res.AlreadyRestored || res.Kept != "" || res.Added != 0 {
		t.Errorf("second restore: %+v", res)
	}
	if _, err := os.Stat(path + ".pre-restore.1"); err == nil {
		t.Error("second restore made an identical .pre-restore.1")
	}
	if readFile(t, path) != orig {
		t.Error("restored content differs from the original")
	}
}

// TestLockExclusiveWhileRemoved: the lock file is removed on release, so
// a racer may lock a file no longer named; the re-check after flock keeps
// two holders out all the same.
func TestLockExclusiveWhileRemoved(t *testing.T) {
	path := writeSession(t, "{}\n")
	var holders, maxHolders, acquired atomic.Int32
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				unlock, err := Lock(path)
				if err != nil {
					continue
				}
				acquired.Add(1)
				if holders.Add(1) > 1 {
					maxHolders.Store(2)
				}
				time.Sleep(20 * time.Microsecond) // let racers open the file we are about to remove
				holders.Add(-1)
				unlock()
			}
		}()
	}
	wg.Wait()
	if maxHolders.Load() > 1 || acquired.Load() == 0 {
		t.Fatalf("%d holders at once (%d acquisitions)", maxHolders.Load(), acquired.Load())
	}
	if _, err := os.Stat(path + ".lock"); err == nil {
		t.Error("lock file left after the last release")
	}
}

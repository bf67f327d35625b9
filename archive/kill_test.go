package archive

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowWriter makes a refresh take long enough to be killed in the middle.
type slowWriter struct{ w io.Writer }

func (s slowWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		c := min(len(b), 1024)
		time.Sleep(time.Millisecond)
		m, err := s.w.Write(b[:c])
		n += m
		if err != nil {
			return n, err
		}
		b = b[c:]
	}
	return n, nil
}

// TestKillChild is the child of TestKill9MidCopy: it refreshes the archive
// slowly until it is killed.
func TestKillChild(t *testing.T) {
	dir := os.Getenv("TETHER_ARCHIVE_KILL_DIR")
	if dir == "" {
		t.Skip("child process of TestKill9MidCopy")
	}
	wrapTemp = func(w io.Writer) io.Writer { return slowWriter{w} }
	st := &Store{Dir: filepath.Join(dir, "archive"), Mode: ModeCopy}
	root := filepath.Join(dir, "claude")
	os.WriteFile(filepath.Join(dir, "started"), nil, 0o600)
	_, err := st.Archive(Source{Harness: "claude-code", Root: root, Path: filepath.Join(root, "projects", "p", "s.jsonl")})
	t.Fatalf("child finished before it was killed: %v", err)
}

func TestKill9MidCopy(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "claude")
	live := filepath.Join(root, "projects", "p", "s.jsonl")
	os.MkdirAll(filepath.Dir(live), 0o700)
	first := "{\"first\":1}\n"
	os.WriteFile(live, []byte(first), 0o600)
	st := &Store{Dir: filepath.Join(dir, "archive"), Mode: ModeCopy}
	src := Source{Harness: "claude-code", Root: root, Path: live}
	res, err := st.Archive(src)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(res.Stored)
	// Grow the source with incompressible lines so the copy takes many writes.
	var b strings.Builder
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "{\"n\":\"%016x%016x\"}\n", rnd.Uint64(), rnd.Uint64())
	}
	appendFile(t, live, b.String())
	liveBefore, _ := os.ReadFile(live)

	cmd := exec.Command(os.Args[0], "-test.run", "^TestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TETHER_ARCHIVE_KILL_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			if ents, _ := os.ReadDir(filepath.Dir(res.Stored)); len(ents) > 1 {
				break // the temporary file exists: the copy is under way
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	temps := 0
	ents, _ := os.ReadDir(filepath.Dir(res.Stored))
	for _, e := range ents {
		if IsTemp(e.Name()) {
			temps++
		}
	}
	if temps != 1 {
		t.Fatalf("the child was not killed in the middle of the copy (%d temporary files)", temps)
	}
	after, _ := os.ReadFile(res.Stored)
	if !bytes.Equal(before, after) {
		t.Fatal("after kill -9 the stored file is not the previous one")
	}
	if liveAfter, _ := os.ReadFile(live); !bytes.Equal(liveAfter, liveBefore) {
		t.Fatal("live file changed")
	}
	// Walk ignores the dead run's temporary file, and the next run completes.
	n := 0
	st.Walk([]string{"claude-code"}, func(Entry) { n++ })
	if n != 1 {
		t.Fatalf("walk found %d stored files, want 1", n)
	}
	if n := st.CleanTemps([]string{"claude-code"}, time.Hour); n != 0 {
		t.Fatalf("removed %d recent temporary files", n)
	}
	if n := st.CleanTemps([]string{"claude-code"}, -time.Second); n != 1 {
		t.Fatalf("removed %d of the dead run's temporary files, want 1", n)
	}
	assertNoTemp(t, filepath.Dir(res.Stored))
	if _, err := st.Archive(src); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Decompress(&out, res.Stored); err != nil || out.String() != string(liveBefore) {
		t.Fatalf("refresh after the kill: %v", err)
	}
}

package hot

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/identity"
)

// With GiveUp (tether-hot), the prompt is computed on the calling
// goroutine: a state file that blocks (a FIFO nobody writes, as a hung
// network file system would) makes the watchdog call GiveUp at the
// timeout, and nothing is printed even when the read then completes.
func TestRunPromptGiveUp(t *testing.T) {
	stateDir := t.TempDir()
	root := "/home/example/src/p"
	path := RootStatePath(stateDir, root)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var out bytes.Buffer
	gaveUp := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- RunPrompt(PromptOptions{Out: &out, Root: identity.Root{Path: root}, StateDir: stateDir,
			CacheDir: t.TempDir(), Shell: "plain", Timeout: 20 * time.Millisecond, Now: time.Now,
			GiveUp: func() {
				close(gaveUp)
				// Unblock the read, as the process's exit would end it.
				if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
			}})
	}()
	select {
	case <-gaveUp:
	case <-time.After(10 * time.Second):
		t.Fatal("GiveUp was not called for a blocked state file")
	}
	select {
	case err := <-done:
		if err != nil || out.Len() != 0 {
			t.Errorf("after giving up: %v, printed %q", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunPrompt did not return once the read was unblocked")
	}
}

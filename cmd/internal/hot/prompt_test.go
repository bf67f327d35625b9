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

// Work that blocks (a hung network file system) makes the prompt return
// at the timeout with nothing printed, nor anything once the work then
// completes. The timeout covers building the options (the config's read)
// too.
func TestRunPromptTimeout(t *testing.T) {
	var out bytes.Buffer
	unblock := make(chan struct{})
	built := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- guardPrompt(20*time.Millisecond, func() *PromptOptions {
			<-unblock
			defer close(built)
			return &PromptOptions{Out: &out, Root: identity.Root{Path: "/home/example/src/p"}, StateDir: t.TempDir(),
				CacheDir: t.TempDir(), Shell: "plain", Now: time.Now}
		})
	}()
	select {
	case err := <-done:
		if err != nil || out.Len() != 0 {
			t.Errorf("after the timeout: %v, printed %q", err, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt did not give up on blocked work")
	}
	close(unblock)
	<-built
	if out.Len() != 0 {
		t.Errorf("printed %q once the work completed", out.String())
	}
}

// A FIFO planted as the root's state file (issue 23, item 10) is not
// waited on: the prompt prints nothing, at once, long before its timeout.
func TestRunPromptFIFOState(t *testing.T) {
	stateDir := t.TempDir()
	root := "/home/example/src/p"
	path := RootStatePath(stateDir, root)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- RunPrompt(PromptOptions{Out: &out, Root: identity.Root{Path: root}, StateDir: stateDir,
			CacheDir: t.TempDir(), Shell: "plain", Timeout: time.Hour, Now: time.Now})
	}()
	select {
	case err := <-done:
		if err != nil || out.Len() != 0 {
			t.Errorf("FIFO state: %v, printed %q", err, out.String())
		}
	case <-time.After(5 * time.Second):
		// Unblock the reader so the test binary can end.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("the prompt blocks on a FIFO state file")
	}
}

package hot

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
)

// TestHookWatchdog: a hook still running after its budget logs the
// timeout and gives up (the process exits 0 there). Here the payload
// never comes and the read's own deadline is an hour away: only the
// watchdog can end it, and its GiveUp unblocks the read.
func TestHookWatchdog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "events.jsonl")
	r, w := io.Pipe()
	ios, _, _, _ := iostreams.Test()
	ios.In = r
	gaveUp := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunHook(context.Background(), HookOptions{
			IO: ios, Args: []string{"Stop"}, Timeout: 20 * time.Millisecond,
			Read: hooks.ReadLimits{Total: time.Hour, Idle: time.Hour, Max: 1 << 20},
			Env:  hooks.Env{StateDir: t.TempDir(), Log: eventlog.Open(eventlog.Options{Path: logPath})},
			GiveUp: func() {
				close(gaveUp)
				w.Close()
			},
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		w.Close()
		t.Fatal("the watchdog did not give up")
	}
	select {
	case <-gaveUp:
	default:
		t.Fatal("RunHook returned without giving up")
	}
	data, _ := os.ReadFile(logPath)
	if !strings.Contains(string(data), "hook timed out after 20ms") {
		t.Errorf("log does not say the hook timed out:\n%s", data)
	}
}

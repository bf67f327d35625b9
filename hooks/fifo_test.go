package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 13 item 11: a transcript_path that is a FIFO (or any file that is
// not regular) must not stall the hook: opening a FIFO for reading blocks
// until a writer appears. The guard fails the test instead of hanging.
func TestTranscriptFIFODoesNotStall(t *testing.T) {
	h := newHandlerEnv(t)
	fifo := filepath.Join(t.TempDir(), "s.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, ev := range []string{
			`{"session_id":"s","hook_event_name":"SessionStart","source":"resume","cwd":"/home/example/p","transcript_path":"` + fifo + `"}`,
			`{"session_id":"s","hook_event_name":"Stop","cwd":"/home/example/p","transcript_path":"` + fifo + `"}`,
			`{"session_id":"s","hook_event_name":"SessionEnd","reason":"exit","cwd":"/home/example/p","transcript_path":"` + fifo + `"}`,
		} {
			h.handle(t, ev)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		// Unblock the stuck open so the goroutine can finish.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("a hook with a FIFO transcript_path did not return")
	}
	for _, ev := range []string{EvResume, EvTurnEnd, EvSessionEnd} {
		if len(h.records(t, ev)) != 1 {
			t.Errorf("%s not recorded", ev)
		}
	}
	if tu := h.records(t, EvTurnEnd); len(tu) == 1 && tu[0].Get("tokens").Int() != 0 {
		t.Errorf("tokens read from a FIFO: %s", tu[0].Raw)
	}
	if data, _ := os.ReadFile(h.logPath); !strings.Contains(string(data), "not a regular file") {
		t.Errorf("the log does not say why the transcript was not read:\n%s", data)
	}
}

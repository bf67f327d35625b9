package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
)

// `tether hook` with an unusable TETHER_IDENTITY_ROOT: the hook opens the
// log first, whose root's first resolution logs the ignored pin through
// that same log. Resolved inside the log's sync.Once, it hung the hook
// (before its watchdog started) until the agent killed it.
func TestHookWithIgnoredPinDoesNotHang(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_IDENTITY_ROOT"] = "relative/root"
	ta.IO.In = strings.NewReader(`{"session_id":"s1","hook_event_name":"PostToolUse","cwd":"/home/example/p","tool_name":"Bash"}`)
	done := make(chan int, 1)
	go func() { done <- ta.run("hook") }()
	select {
	case code := <-done:
		if code != 0 || ta.out.Len() != 0 || ta.err.Len() != 0 {
			t.Errorf("exit %d, stdout %q, stderr %q: want 0 and nothing", code, ta.out, ta.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tether hook with an ignored TETHER_IDENTITY_ROOT hangs")
	}
	data, err := os.ReadFile(state.EventLogPath(ta.Loc.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), eventlog.IdentityPinIgnored); n != 1 {
		t.Errorf("%d %s records, want 1:\n%s", n, eventlog.IdentityPinIgnored, data)
	}
}

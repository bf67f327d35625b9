package hot

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
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
			Env:  hooks.Env{StateDir: t.TempDir(), Agents: AgentsAt(locations.Locations{}), Log: eventlog.Open(eventlog.Options{Path: logPath})},
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

// TestHookBudgetCoversConfig (issue 23, item 10): the hook's budget
// starts before the config is read, so a config read that never returns
// (a file system that hangs) still ends the hook, with status 0, at the
// budget. A hang check, not a timing assertion.
func TestHookBudgetCoversConfig(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	block := make(chan struct{}) // never closed: the read hangs for good
	exited := make(chan int, 1)
	d := &Deps{IO: ios, Getenv: func(k string) string {
		if k == EnvInHook {
			return ""
		}
		return os.Getenv(k)
	}, Now: time.Now, readConfig: func(string) (config.Config, error) {
		<-block
		return config.Default(), nil
	}, Exit: func(code int) { exited <- code }}
	t.Setenv(EnvInHook, "")
	go Hook(context.Background(), d, []string{"PostToolUse"}, nil)
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("gave up with status %d, want 0", code)
		}
	case <-time.After(hookTimeout + 10*time.Second):
		t.Fatal("a hook whose config read hangs never gives up")
	}
}

// TestHookPrintsTheWrappersNotice: at SessionStart the hook's stdout is
// Claude Code's hook JSON carrying the wrapper's notice as systemMessage,
// with no control character from a path in it; without a notice it
// prints nothing.
func TestHookPrintsTheWrappersNotice(t *testing.T) {
	stateDir := t.TempDir()
	root := "/home/example/src/project"
	env := map[string]string{identity.EnvRoot: root, "CLAUDE_CODE_SESSION_ID": "s1"}
	run := func() string {
		ios, _, out, _ := iostreams.Test()
		payload := `{"hook_event_name":"SessionStart","session_id":"s1","source":"startup","cwd":"` + root + `"}`
		RunHook(context.Background(), HookOptions{
			IO: ios, Args: []string{"SessionStart", payload}, Timeout: time.Minute,
			Env: hooks.Env{StateDir: stateDir, Agents: AgentsAt(locations.Locations{}), Getenv: func(k string) string { return env[k] },
				Log: eventlog.Open(eventlog.Options{Path: filepath.Join(stateDir, "events.jsonl")})},
		})
		return out.String()
	}
	if out := run(); out != "" {
		t.Errorf("no notice, stdout %q", out)
	}
	state.LeaveNotice(stateDir, root, "", "tether: session x could not be resumed — starting fresh. kept in /tmp/a\x1b]0;pwn\x07b", time.Now())
	out := run()
	var doc map[string]string
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("stdout %q is not one hook JSON object: %v", out, err)
	}
	if msg := doc["systemMessage"]; !strings.HasPrefix(msg, "tether: session x could not be resumed") || strings.ContainsAny(msg, "\x1b\x07") {
		t.Errorf("systemMessage %q", msg)
	}
	if out := run(); out != "" {
		t.Errorf("the notice was shown twice: %q", out)
	}
}

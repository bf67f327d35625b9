package hot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
)

// An unusable TETHER_IDENTITY_ROOT is logged once, when the root is first
// resolved, through the log the root's resolution also names. Opening the
// log first (the hook and the statusLine do) resolved the root inside the
// log's sync.Once, whose warning then opened the log again: a deadlock the
// runtime reported as a fatal error (exit 2 and a stack trace, which a
// Claude Code hook reads as "block and show Claude this").
func TestLogWithIgnoredPinDoesNotDeadlock(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(dir, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(dir, "codex"))
	t.Setenv("TETHER_CONFIG", "")
	t.Setenv("TETHER_IDENTITY_ROOT", "relative/root")
	d := New()
	done := make(chan *eventlog.Log, 1)
	go func() { done <- d.Log() }()
	var log *eventlog.Log
	select {
	case log = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("opening the log with an ignored TETHER_IDENTITY_ROOT hangs")
	}
	if log == nil {
		t.Fatal("no log")
	}
	if root := d.Root(); root.IgnoredPin == "" || root.Pinned {
		t.Errorf("root %+v: the relative pin should be ignored", root)
	}
	data, err := os.ReadFile(state.EventLogPath(d.Loc.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), eventlog.IdentityPinIgnored); n != 1 {
		t.Errorf("%d %s records, want 1:\n%s", n, eventlog.IdentityPinIgnored, data)
	}
}

// An ignored TETHER_IDENTITY_ROOT is logged by any command that opens
// the log, at every level, in both binaries (one Deps): tether's App did
// so, tether-hot waited for a record that named no root of its own.
func TestLogOpenLogsIgnoredPin(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []string{"HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		t.Setenv(k, filepath.Join(dir, k))
	}
	t.Setenv("TETHER_CONFIG", "")
	t.Setenv("TETHER_LOG_LEVEL", "info")
	t.Setenv("TETHER_IDENTITY_ROOT", "relative/root")
	d := New()
	d.Log()
	data, _ := os.ReadFile(state.EventLogPath(d.Loc.StateDir))
	if n := strings.Count(string(data), eventlog.IdentityPinIgnored); n != 1 {
		t.Errorf("%d %s records after opening the log, want 1:\n%s", n, eventlog.IdentityPinIgnored, data)
	}
}

// The reset markers existing installs left keep their names: Claude
// Code's project directory name of the root.
func TestResetNameIsTheExistingOne(t *testing.T) {
	const dir = "/home/example/.local/state/tether"
	if got := state.ResetPath(dir, ResetName("/home/example/src/proj")); got != dir+"/reset/-home-example-src-proj.json" {
		t.Errorf("reset marker %s", got)
	}
}

// The registry is every agent, each bound to the data root Locations
// says, built once per process and without reading anything.
func TestAgentsAreBoundToTheirDirs(t *testing.T) {
	d := &Deps{Loc: locations.Locations{ClaudeDir: "/nonexistent/claude", CodexDir: "/nonexistent/codex", OpenCodeDir: "/nonexistent/opencode"}}
	agents := d.Agents()
	if names := strings.Join(agents.Names(), ","); names != "claude-code,codex,opencode" {
		t.Fatalf("agents %s", names)
	}
	if agents[0].Home() != "/nonexistent/claude" || agents[1].Home() != "/nonexistent/codex" || agents[2].Home() != "/nonexistent/opencode" {
		t.Errorf("homes %s, %s, %s", agents[0].Home(), agents[1].Home(), agents[2].Home())
	}
	if &d.Agents()[0] != &agents[0] {
		t.Error("the registry was built twice")
	}
	for _, name := range []string{"claude", "codex", "opencode"} {
		if !IsAgentCommand(name) || agents.Get(name) == nil {
			t.Errorf("%s is not an agent's command", name)
		}
	}
	if IsAgentCommand("claude-code") || IsAgentCommand("tether") {
		t.Error("a name that is no agent's command wraps")
	}
}

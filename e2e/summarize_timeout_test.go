//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"context"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// providerProcesses are the pids of this test's summary runs (a process
// whose argv has --no-session-persistence and whose HOME is the test's).
func providerProcesses(home string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("--no-session-persistence")) {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(environ, []byte("\x00HOME="+home+"\x00")) || bytes.HasPrefix(environ, []byte("HOME="+home+"\x00")) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// The real Claude Code as the provider, the model never answering:
// timeout_seconds ends the run with a timeout error, and no process of
// the summary run is left behind.
func TestSummarizeRealClaudeTimeout(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !isSummaryRequest(r) && fakeapi.IsSideRequest(r) })
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("stall")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "okapi plan the stall")
	os.MkdirAll(filepath.Join(env.Home, ".config", "tether"), 0o700)
	os.WriteFile(filepath.Join(env.Home, ".config", "tether", "config.toml"),
		[]byte("[summarize]\nprovider = \"claude\"\ntimeout_seconds = 2\n"), 0o600)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	bin := harness.Tether(t)
	api.SetStreamDelay(10 * time.Minute)
	env.Timeout = 60 * time.Second
	res := env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", sid)
	if res.TimedOut || res.ExitCode != 1 || !strings.Contains(res.Stderr, "deadline exceeded") {
		t.Fatalf("summarize: exit %d (timed out %v)\n%s", res.ExitCode, res.TimedOut, res.Stderr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for left := providerProcesses(env.Home); len(left) > 0; left = providerProcesses(env.Home) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the summary run left: %v", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(env.Home, ".local", "share", "tether", "summaries", "claude-code", sid+".json")); err == nil {
		t.Error("a summary was stored")
	}
}

package wrap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/procfs"
)

// compactingAgent is OpenCode with its export and import scripted.
type compactingAgent struct {
	*opencode.Agent
	failed  bool
	forkErr error
	forks   []agent.ForkOptions
}

func (c *compactingAgent) CompactionFailed(context.Context, string, string) (bool, error) {
	return c.failed, nil
}

func (c *compactingAgent) ForkKeep(_ context.Context, _, id string, o agent.ForkOptions) (agent.Fork, error) {
	c.forks = append(c.forks, o)
	if c.forkErr != nil {
		return agent.Fork{}, c.forkErr
	}
	return agent.Fork{ID: "ses_fork", Dir: "/home/example/proj", Turns: 2, Of: 5, Messages: 6, Dropped: 9}, nil
}

func runCompacting(t *testing.T, a *compactingAgent, codes ...int) (int, []Child, string, string) {
	t.Helper()
	home := t.TempDir()
	a.Agent.Proc = procfs.FS{Root: t.TempDir()} // nothing runs
	var calls []Child
	var stderr bytes.Buffer
	logPath := filepath.Join(home, "events.jsonl")
	code, err := Run(Options{
		Agent: a, Bin: "/usr/bin/opencode-real", Args: []string{"run", "--session", "ses_orig", "next prompt"},
		Root: identity.Resolve(home), Stderr: &stderr, Log: eventlog.Open(eventlog.Options{Path: logPath}),
		Exec: func(c Child) (int, error) {
			calls = append(calls, c)
			return codes[len(calls)-1], nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(logPath)
	return code, calls, stderr.String(), string(log)
}

// A resume whose session OpenCode could not compact is run once more on
// a fork of its last turns, without the one that overflowed (the command
// sends that prompt again).
func TestCompactionFailureForksAndResumesTheFork(t *testing.T) {
	a := &compactingAgent{Agent: opencode.New(t.TempDir(), ""), failed: true}
	code, calls, stderr, log := runCompacting(t, a, 1, 0)
	if code != 0 || len(calls) != 2 {
		t.Fatalf("code %d after %d runs; stderr %s", code, len(calls), stderr)
	}
	if got := strings.Join(calls[1].Args, " "); got != "run --session ses_fork next prompt" || calls[1].Dir != "/home/example/proj" {
		t.Errorf("retry: %q in %s", got, calls[1].Dir)
	}
	if len(a.forks) != 1 || a.forks[0] != (agent.ForkOptions{Turns: forkTurns, DropUnanswered: true}) {
		t.Errorf("forks: %+v", a.forks)
	}
	if !strings.Contains(stderr, "its last 2 of 5 turns are now session ses_fork (ses_orig is unchanged)") {
		t.Errorf("stderr: %s", stderr)
	}
	if !strings.Contains(log, `"event":"resume_fork"`) || !strings.Contains(log, `"new_session_id":"ses_fork"`) {
		t.Errorf("log: %s", log)
	}
}

// Any other failure is OpenCode's to report: one run, no fork.
func TestOtherOpenCodeFailuresAreNotForked(t *testing.T) {
	a := &compactingAgent{Agent: opencode.New(t.TempDir(), "")}
	if code, calls, _, _ := runCompacting(t, a, 1); code != 1 || len(calls) != 1 || len(a.forks) != 0 {
		t.Errorf("code %d, %d runs, forks %v", code, len(calls), a.forks)
	}
	// A fork that cannot be made leaves the run's status, and says why.
	a = &compactingAgent{Agent: opencode.New(t.TempDir(), ""), failed: true, forkErr: errors.New("no answered turn")}
	code, calls, stderr, _ := runCompacting(t, a, 1)
	if code != 1 || len(calls) != 1 || !strings.Contains(stderr, "could not be forked: no answered turn") {
		t.Errorf("code %d, %d runs, stderr %s", code, len(calls), stderr)
	}
}

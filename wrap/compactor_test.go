package wrap

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	code, calls, _, stderr, log := runCompactingWith(t, a, nil, []string{"run", "--session", "ses_orig", "next prompt"}, codes...)
	return code, calls, stderr, log
}

// runCompactingWith runs args with stdin (nil: a terminal) and returns
// what each run read on its standard input too.
func runCompactingWith(t *testing.T, a *compactingAgent, stdin io.Reader, args []string, codes ...int) (int, []Child, []string, string, string) {
	t.Helper()
	var inputs []string
	home := t.TempDir()
	a.Agent.Proc = procfs.FS{Root: t.TempDir()} // nothing runs
	var calls []Child
	var stderr bytes.Buffer
	logPath := filepath.Join(home, "events.jsonl")
	code, err := Run(Options{
		Agent: a, Bin: "/usr/bin/opencode-real", Args: args, Stdin: stdin, Interactive: stdin == nil,
		Root: identity.Resolve(home), Stderr: &stderr, Log: eventlog.Open(eventlog.Options{Path: logPath}),
		Exec: func(c Child) (int, error) {
			calls = append(calls, c)
			in := "<terminal>"
			if c.Stdin != nil {
				b, _ := io.ReadAll(c.Stdin)
				in = string(b)
			}
			inputs = append(inputs, in)
			return codes[len(calls)-1], nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(logPath)
	return code, calls, inputs, stderr.String(), string(log)
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

// A prompt given on stdin (OpenCode quotes one given as arguments) is
// read by the first run: the wrapper keeps it and gives it to the retry
// on the fork too, and to each run through a pipe.
func TestCompactionRetryResendsAPromptFromStdin(t *testing.T) {
	a := &compactingAgent{Agent: opencode.New(t.TempDir(), ""), failed: true}
	args := []string{"run", "--session", "ses_orig"}
	code, calls, inputs, stderr, _ := runCompactingWith(t, a, strings.NewReader("next prompt\n"), args, 1, 0)
	if code != 0 || len(calls) != 2 {
		t.Fatalf("code %d after %d runs; stderr %s", code, len(calls), stderr)
	}
	if want := []string{"next prompt\n", "next prompt\n"}; !slices.Equal(inputs, want) {
		t.Errorf("stdin of the runs: %q, want %q", inputs, want)
	}
	// A terminal is left alone: the child reads it itself.
	_, _, inputs, _, _ = runCompactingWith(t, a, nil, args, 1, 0)
	if !slices.Equal(inputs, []string{"<terminal>", "<terminal>"}) {
		t.Errorf("terminal: %q", inputs)
	}
}

// Input larger than the wrapper keeps passes through whole, once: there
// is no retry (it would have no prompt).
func TestCompactionRetryInputTooLargeToKeep(t *testing.T) {
	a := &compactingAgent{Agent: opencode.New(t.TempDir(), ""), failed: true}
	big := strings.Repeat("x", maxReplay+10)
	code, calls, inputs, stderr, _ := runCompactingWith(t, a, strings.NewReader(big), []string{"run", "-s", "ses_orig"}, 1, 0)
	if code != 1 || len(calls) != 1 || len(a.forks) != 0 {
		t.Fatalf("code %d after %d runs, forks %v; stderr %s", code, len(calls), a.forks, stderr)
	}
	if inputs[0] != big {
		t.Errorf("stdin of the run: %d bytes, want %d", len(inputs[0]), len(big))
	}
	if !strings.Contains(stderr, "not forking it: its input (over 16 MiB) was not kept") {
		t.Errorf("stderr: %s", stderr)
	}
}

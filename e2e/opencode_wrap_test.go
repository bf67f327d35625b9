//go:build e2e

package e2e

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestOpenCodeWrap drives the real OpenCode through tether's wrapper: a
// resume by id from another directory (OpenCode alone never exits
// there) runs in the session's directory and sends the earlier prompt;
// `tether sessions resume --print` prints the command; an unknown id
// gets one notice and a fresh session; a session an opencode process is
// running is refused by both `tether sessions resume` and `tether run`.
func TestOpenCodeWrap(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	ctx := context.Background()
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", clis.OpenCode)
	tether := harness.Tether(t)
	dir := gitProject(t, env, "proj")
	other := env.ProjectDir("other")

	id := openCodeSession(t, env, dir, "the first prompt of the session")

	api.Enqueue(fakeapi.Text("resumed through tether"))
	r := env.RunInput(ctx, "tether run opencode run --session (elsewhere)", tether, other, "a second prompt",
		"run", "opencode", "run", "--session", id, "--format", "json")
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("resume from another directory: exit %d (timed out %v): %s", r.ExitCode, r.TimedOut, r.Stderr)
	}
	if got, err := r.OpenCodeSession(); err != nil || got != id || !strings.Contains(r.OpenCodeText(), "resumed through tether") {
		t.Errorf("resumed %q (%v), text %q; want session %s", got, err, r.OpenCodeText(), id)
	}
	last, ok := api.LastModelRequest()
	if !ok || !strings.Contains(string(last.Body), "the first prompt of the session") || !strings.Contains(string(last.Body), "a second prompt") {
		t.Errorf("the resumed turn does not carry the earlier prompt: %v", ok)
	}

	r = env.Run(ctx, "tether sessions resume --print", tether, other, "sessions", "resume", "--print", id)
	if want := "cd " + dir + " && opencode --session " + id + "\n"; r.ExitCode != 0 || r.Stdout != want {
		t.Errorf("--print: exit %d, %q, want %q", r.ExitCode, r.Stdout, want)
	}

	unknown := "ses_0123456789abNoSuchSession0"
	r = env.RunInput(ctx, "tether run opencode run -s unknown", tether, dir, "hello again",
		"run", "opencode", "run", "-s", unknown, "--format", "json")
	notice := "could not be resumed (session not found) — starting fresh."
	fresh, err := r.OpenCodeSession()
	if r.ExitCode != 0 || strings.Count(r.Stderr, notice) != 1 || err != nil || fresh == id || fresh == unknown {
		t.Errorf("unknown id: exit %d, session %q (%v), stderr %q", r.ExitCode, fresh, err, r.Stderr)
	}

	refusedWhileRunning(t, env, tether, clis.OpenCode, dir, other, id)
}

// refusedWhileRunning starts `opencode run --session id` on a slow reply
// and, while it runs, resumes the session through tether twice.
func refusedWhileRunning(t *testing.T, env *harness.Env, tether, opencode, dir, other, id string) {
	api := env.API
	before := len(api.ModelRequests())
	api.SetStreamDelay(2 * time.Second)
	defer api.SetStreamDelay(0)
	cmd := exec.Command(opencode, "run", "--session", id)
	cmd.Dir, cmd.Env = dir, env.Environ()
	cmd.Stdin = strings.NewReader("a slow turn")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(60 * time.Second); len(api.ModelRequests()) == before; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow turn never reached the fake API")
		}
	}
	ctx := context.Background()
	r := env.Run(ctx, "tether sessions resume (running)", tether, other, "sessions", "resume", id)
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, "is running as pid") {
		t.Errorf("sessions resume of a running session: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	r = env.RunInput(ctx, "tether run opencode run -s (running)", tether, other, "interleaved",
		"run", "opencode", "run", "-s", id)
	if r.ExitCode != 4 || !strings.Contains(r.Stderr, "is running in process") {
		t.Errorf("tether run of a running session: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	for _, req := range api.Requests() {
		if strings.Contains(string(req.Body), "interleaved") {
			t.Error("the refused resume reached the API")
		}
	}
}

//go:build e2e

package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestSessionsResumeGoesThroughWrapper: a session whose resume failed
// shows as stale in list and show, and `tether sessions resume` of it gets
// the wrapper's notice and fresh start instead of opening the real CLI
// straight into the context limit.
func TestSessionsResumeGoesThroughWrapper(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	ctx := context.Background()
	env, api, tether := wrapEnv(t, clis.Claude)
	dir := env.ProjectDir("stale")
	env.SeedClaudeJSON(dir)
	sj := []string{"--output-format", "stream-json", "--verbose"}

	r := env.Run(ctx, "new session", tether, dir, append([]string{"run", "claude", "-p", "hello"}, sj...)...)
	if r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	sid := sessionOf(t, r)
	api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
		if len(req.UserTexts()) > 1 {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Reply{}, false
	})
	r = env.Run(ctx, "resume too long", tether, dir, append([]string{"run", "claude", "-p", "--resume", sid, "more"}, sj...)...)
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, "could not be resumed (prompt too long)") {
		t.Fatalf("fallback: exit %d\n%s", r.ExitCode, r.Stderr)
	}

	// Listed and shown as stale, with the fix.
	r = env.Run(ctx, "list", tether, dir, "sessions", "list", "--state", "stale")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, sid[:8]) || !strings.Contains(r.Stdout, " stale ") {
		t.Errorf("list --state stale: exit %d\n%s", r.ExitCode, r.Stdout)
	}
	r = env.Run(ctx, "show", tether, dir, "sessions", "show", sid)
	if !strings.Contains(r.Stdout, "stale (prompt too long, on ") || !strings.Contains(r.Stdout, "tether trim --fit 60% "+sid) {
		t.Errorf("show:\n%s", r.Stdout)
	}

	before := countEvents(t, env, "fresh_fallback")
	tm := env.StartTmux(dir, tether, "sessions", "resume", sid[:8])
	screen, ok := tm.WaitUntil(func(s string) bool {
		return strings.Contains(s, "could not be resumed") || strings.Contains(s, "Context limit")
	}, 60*time.Second)
	if !ok || !strings.Contains(screen, "could not be resumed") {
		t.Errorf("no notice on screen:\n%s", screen)
	}
	tm.WaitFor("❯", 60*time.Second)
	tm.SendText("/exit")
	tm.SendKeys("Enter")
	tm.WaitExit(30 * time.Second)
	tm.Kill()
	if after := countEvents(t, env, "fresh_fallback"); after != before+1 {
		t.Errorf("sessions resume did not go through the wrapper's fallback: fresh_fallback %d → %d", before, after)
	}
}

func countEvents(t *testing.T, env *harness.Env, name string) int {
	n := 0
	for _, rec := range events(t, env) {
		if rec.Event == name {
			n++
		}
	}
	return n
}

// TestSessionsResumeTmuxWithoutClient: inside tmux with no client attached
// (a script, a run-shell), --tmux starts the wrapped resume in a new tmux
// session and says in one line where it runs and how to attach, instead of
// "no current client" and "exit status 1".
func TestSessionsResumeTmuxWithoutClient(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	ctx := context.Background()
	env, _, tether := wrapEnv(t, clis.Claude)
	dir := env.ProjectDir("tmuxed")
	r := env.Run(ctx, "new session", tether, dir, "run", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose")
	if r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	sid := sessionOf(t, r)

	sock := filepath.Join(t.TempDir(), "tmux.sock")
	server := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "base", "sleep 300")
	server.Env = env.Environ()
	if out, err := server.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	env.Setenv("TMUX", sock+",1,0")

	r = env.Run(ctx, "resume --tmux", tether, dir, "sessions", "resume", "--tmux=work", sid[:8])
	want := "tether: session " + sid[:8] + " runs in tmux session work; attach with: tmux attach -t '=work'\n"
	if r.ExitCode != 0 || r.Stderr != want {
		t.Errorf("exit %d, stderr %q, want %q", r.ExitCode, r.Stderr, want)
	}
	out, err := exec.Command("tmux", "-S", sock, "list-panes", "-t", "=work", "-F", "#{pane_start_command}").Output()
	if err != nil || !strings.Contains(string(out), "run claude --resume "+sid) {
		t.Errorf("the tmux session does not run the wrapped resume: %v %q", err, out)
	}
}

package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Tmux is a private tmux server (its own socket, so it never touches the
// user's) running one session whose first pane runs a command in an Env.
// It is the base for every test of an interactive CLI: type into the pane,
// wait for text on the screen, read the screen.
type Tmux struct {
	env    *Env
	Socket string // the -L socket name
	// Session is the tmux session name ("e2e").
	Session string
	killed  atomic.Bool
	conf    string // the server's config file
}

var tmuxSeq atomic.Int64

// TmuxAvailable tells whether tmux is installed; tests that need it fail
// under CI=true without it and skip otherwise (see RequireTmux).
func TmuxAvailable() bool {
	_, err := exec.LookPath("tmux")
	return err == nil
}

// RequireTmux skips the test when tmux is missing, unless CI=true, where
// that is fatal.
func RequireTmux(t interface {
	Helper()
	Skip(...any)
	Fatalf(string, ...any)
}) {
	t.Helper()
	if TmuxAvailable() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("e2e: tmux not found (CI=true, so this is fatal)")
	}
	t.Skip("e2e: tmux not found; install tmux to run the interactive scenarios")
}

// StartTmux starts a detached tmux server on a unique socket with a
// 120x40 window running bin args... in dir, with the Env's environment
// (tmux itself gets it too, so the pane's shell-less command sees exactly
// that environment). The server is killed when the test ends.
func (e *Env) StartTmux(dir, bin string, args ...string) *Tmux {
	e.T.Helper()
	RequireTmux(e.T)
	tm := &Tmux{
		env:     e,
		Socket:  fmt.Sprintf("tether-e2e-%d-%d", os.Getpid(), tmuxSeq.Add(1)),
		Session: "e2e",
	}
	// The server reads this when new-session starts it, so the pane is kept
	// (with its exit status and last screen) even when the program exits
	// at once; setting the option afterwards would race a quick exit.
	tm.conf = filepath.Join(e.T.TempDir(), "tmux.conf")
	if err := os.WriteFile(tm.conf, []byte("set-option -g remain-on-exit on\n"), 0o600); err != nil {
		e.T.Fatal(err)
	}
	// new-session runs the command through the default shell unless it is
	// given as several words; pass it as one argv so nothing is re-parsed.
	cmdArgs := []string{"new-session", "-d", "-s", tm.Session, "-x", "120", "-y", "40", "-c", dir}
	for _, kv := range e.Environ() {
		// tmux sets TERM for its panes (screen/tmux-256color); the test's
		// own TERM (often dumb) would make the TUI degrade.
		if !strings.HasPrefix(kv, "TERM=") {
			cmdArgs = append(cmdArgs, "-e", kv)
		}
	}
	cmdArgs = append(cmdArgs, "--", bin)
	cmdArgs = append(cmdArgs, args...)
	if out, err := tm.tmux(cmdArgs...); err != nil {
		e.T.Fatalf("e2e: tmux new-session: %v\n%s", err, out)
	}
	e.T.Logf("e2e: tmux -L %s: started %s %s in %s", tm.Socket, filepath.Base(bin), quoteArgs(args), dir)
	e.T.Cleanup(tm.Kill)
	return tm
}

// tmux runs one tmux command against this server, with the Env's
// environment (so that the server, when this starts it, has it too).
func (tm *Tmux) tmux(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", tm.Socket, "-f", tm.conf}, args...)...)
	cmd.Env = tm.env.Environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Command runs one tmux command against this server (set an option,
// read a format with display-message -p, list buffers) and returns its
// output; a failure fails the test.
func (tm *Tmux) Command(args ...string) string {
	tm.env.T.Helper()
	out, err := tm.tmux(args...)
	if err != nil {
		tm.env.T.Fatalf("e2e: tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// SendText types s literally (send-keys -l), then waits half a second so
// that the program's input handling settles before a following Enter;
// the CLIs treat a fast Enter as part of a paste.
func (tm *Tmux) SendText(s string) {
	tm.env.T.Helper()
	if out, err := tm.tmux("send-keys", "-t", tm.Session, "-l", s); err != nil {
		tm.env.T.Fatalf("e2e: tmux send-keys -l %q: %v\n%s", s, err, out)
	}
	tm.env.T.Logf("e2e: tmux: typed %q", s)
	time.Sleep(500 * time.Millisecond)
}

// SendKeys sends tmux key names (Enter, C-c, C-d, Escape, ...), one
// send-keys call each, 200 ms apart.
func (tm *Tmux) SendKeys(keys ...string) {
	tm.env.T.Helper()
	for i, k := range keys {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		if out, err := tm.tmux("send-keys", "-t", tm.Session, k); err != nil {
			tm.env.T.Fatalf("e2e: tmux send-keys %s: %v\n%s", k, err, out)
		}
	}
	tm.env.T.Logf("e2e: tmux: sent keys %v", keys)
}

// Capture returns the visible screen of the pane (plain text, trailing
// blanks trimmed), or "" when the server is gone.
func (tm *Tmux) Capture() string {
	out, err := tm.tmux("capture-pane", "-p", "-t", tm.Session)
	if err != nil {
		return ""
	}
	return strings.TrimRight(out, "\n ")
}

// WaitFor polls the screen every 100 ms until it contains want or timeout
// passes, and returns the screen. On timeout the test fails with the last
// screen.
func (tm *Tmux) WaitFor(want string, timeout time.Duration) string {
	tm.env.T.Helper()
	screen, ok := tm.WaitUntil(func(s string) bool { return strings.Contains(s, want) }, timeout)
	if !ok {
		tm.env.T.Fatalf("e2e: tmux: %q not on screen after %v; screen:\n%s", want, timeout, screen)
	}
	tm.env.T.Logf("e2e: tmux: saw %q", want)
	return screen
}

// WaitUntil polls the screen every 100 ms until cond holds or timeout
// passes, and returns the last screen and whether cond held.
func (tm *Tmux) WaitUntil(cond func(screen string) bool, timeout time.Duration) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		s := tm.Capture()
		if cond(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// PanePID is the pid of the program running in the pane (0 if unknown).
func (tm *Tmux) PanePID() int {
	out, err := tm.tmux("display-message", "-p", "-t", tm.Session, "#{pane_pid}")
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out))
	return pid
}

// StatusUnknown is the status WaitExit returns when tmux saw the program
// exit but never reported how: tmux 3.3a sometimes marks a pane dead
// without recording the status.
const StatusUnknown = -1

// Exited tells whether the program in the pane has exited (the pane is
// kept dead by remain-on-exit), with its exit status: 128+N when signal N
// ended it, StatusUnknown when tmux does not say.
func (tm *Tmux) Exited() (bool, int) {
	out, err := tm.tmux("display-message", "-p", "-t", tm.Session, "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}")
	if err != nil {
		// No server: nothing runs any more.
		return true, -1
	}
	f := strings.Split(strings.TrimSpace(out), ":")
	if len(f) != 3 || f[0] != "1" {
		return false, 0
	}
	if st, err := strconv.Atoi(f[1]); err == nil {
		return true, st
	}
	if sig, err := strconv.Atoi(f[2]); err == nil {
		return true, 128 + sig
	}
	return true, StatusUnknown
}

// WaitExit waits up to timeout for the program in the pane to exit and
// returns its status; the test fails if it does not.
func (tm *Tmux) WaitExit(timeout time.Duration) int {
	tm.env.T.Helper()
	deadline := time.Now().Add(timeout)
	var deadSince time.Time
	for time.Now().Before(deadline) {
		dead, status := tm.Exited()
		switch {
		case dead && status != StatusUnknown:
			tm.env.T.Logf("e2e: tmux: program exited with status %d", status)
			return status
		case dead && deadSince.IsZero():
			deadSince = time.Now()
		case dead && time.Since(deadSince) > 2*time.Second:
			// The pane is marked dead when its terminal closes, usually a
			// moment before tmux reaps the process and records the status.
			tm.env.T.Logf("e2e: tmux: program exited; tmux did not report its status")
			return StatusUnknown
		}
		time.Sleep(100 * time.Millisecond)
	}
	tm.env.T.Fatalf("e2e: tmux: program still running after %v; screen:\n%s", timeout, tm.Capture())
	return -1
}

// Kill ends the tmux server (and with it the pane's program); the Env's
// Cleanup then ends anything the program left behind. Calling it again
// is harmless.
func (tm *Tmux) Kill() {
	if tm.killed.Swap(true) {
		return
	}
	pid := tm.PanePID()
	if out, err := tm.tmux("kill-server"); err != nil && !strings.Contains(out, "no server") && !strings.Contains(out, "error connecting") {
		tm.env.T.Logf("e2e: tmux kill-server: %v %s", err, out)
	}
	if pid > 1 && alive(pid) && !isZombie(pid) && tm.env.ownsProcess(pid) {
		terminate(pid)
	}
}

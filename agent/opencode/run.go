package opencode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Timeouts of OpenCode's own commands: a start of its Bun binary takes
// seconds on a busy machine, an export or import of a long session more.
const (
	exportTimeout = 2 * time.Minute
	importTimeout = 2 * time.Minute
)

var _ agent.Compactor = (*Agent)(nil)

// Export runs `opencode export ID` and checks what it printed.
func (a *Agent) export(ctx context.Context, bin, id string) (*export, error) {
	out, err := runOpenCode(ctx, exportTimeout, bin, "", "export", id)
	if err != nil {
		return nil, err
	}
	e, err := parseExport(out)
	if err != nil {
		return nil, fmt.Errorf("opencode export %s: %w", id, err)
	}
	if got := str(e.Info, "id"); got != id {
		return nil, fmt.Errorf("opencode export %s: exported session %s", id, got)
	}
	return e, nil
}

// Inspect is what the export of session id says about it.
func (a *Agent) Inspect(ctx context.Context, bin, id string) (Snapshot, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return Snapshot{}, err
	}
	return e.snapshot(), nil
}

// CompactionFailed implements agent.Compactor.
func (a *Agent) CompactionFailed(ctx context.Context, bin, id string) (bool, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return false, err
	}
	return e.compactionFailed(), nil
}

// ForkKeep implements agent.Compactor: export the session, keep its last
// turns under fresh ids (see planFork, forkExport), and import that as a
// new session from the session's directory (import binds a session to
// the directory it runs in). The file imported is 0600 in a private
// directory, removed after. OpenCode's import inserts rows whose ids are
// new only, and the original's ids are all replaced, so the original is
// not touched.
func (a *Agent) ForkKeep(ctx context.Context, bin, id string, opts agent.ForkOptions) (agent.Fork, error) {
	e, err := a.export(ctx, bin, id)
	if err != nil {
		return agent.Fork{}, err
	}
	plan, err := planFork(e, opts)
	if err != nil {
		return agent.Fork{}, fmt.Errorf("session %s: %w", id, err)
	}
	ids := newIDSource(time.Now())
	data, sid, err := forkExport(e, plan, ids, time.Now())
	if err != nil {
		return agent.Fork{}, fmt.Errorf("session %s: %w", id, err)
	}
	ids.Wait()
	dir := str(e.Info, "directory")
	if err := importExport(ctx, bin, dir, sid, data); err != nil {
		return agent.Fork{}, err
	}
	return agent.Fork{ID: sid, Dir: dir, Turns: plan.turns, Of: plan.of, Summary: plan.summary,
		Messages: len(plan.keep), Dropped: len(e.Messages) - len(plan.keep)}, nil
}

func importExport(ctx context.Context, bin, dir, sid string, data []byte) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the session's directory %s is not there: OpenCode imports a session into the directory it runs in", dir)
	}
	tmp, err := os.MkdirTemp("", "tether-opencode-fork-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "fork.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return err
	}
	out, err := runOpenCode(ctx, importTimeout, bin, dir, "import", file)
	if err != nil {
		return err
	}
	if !bytes.Contains(out, []byte("Imported session: "+sid)) {
		return fmt.Errorf("opencode import: %s", lastLine(out, "it did not say it imported "+sid))
	}
	return nil
}

// runOpenCode runs bin args in dir ("": the current directory) in a
// process group of its own, killed at the timeout and after the run, and
// returns its standard output. A failure's error is OpenCode's last line
// of standard error.
func runOpenCode(ctx context.Context, timeout time.Duration, bin, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	_ = killGroup(cmd)
	name := "opencode " + args[0]
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s: no answer within %s", name, timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, lastLine(errb.Bytes(), err.Error()))
	}
	return out.Bytes(), nil
}

// KillGroup kills a command's process group (Setpgid made its pid the
// group's id).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// lastLine is the last non-empty line of a program's output without its
// colours, or def. (No regexp: tether-hot compiles none.)
func lastLine(b []byte, def string) string {
	lines := strings.Split(stripANSI(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return def
}

// stripANSI drops the CSI sequences (ESC [ … letter) OpenCode colours
// its errors with.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] == ';' || (s[j] >= '0' && s[j] <= '9')) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

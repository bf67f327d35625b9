package hot

import (
	"log/slog"
	"os"
	"os/exec"
	"syscall"

	"github.com/tether-dev/tether/agent"
)

// Lifecycle log events of the automatic summary's start (the summary
// itself is the full tether's).
const (
	EvSummaryFailed   = "summary_failed"
	EvSummaryStarting = "summary_auto_start"
)

// AutoSummarize returns what a SessionEnd hook calls with [summarize]
// auto: `tether sessions summarize --auto HARNESS:ID`, started by start
// (StartBackground of the full tether), so the hook returns at once; the
// job takes a non-blocking lock, so at most one runs at a time.
func AutoSummarize(d *Deps, start func(args []string) (pid int, err error)) func(harness, id string) {
	return func(harness, id string) {
		if id == "" || (harness != agent.Claude && harness != agent.Codex) {
			return
		}
		pid, err := start([]string{"sessions", "summarize", "--auto", harness + ":" + id})
		if err != nil {
			d.Log().Warn(EvSummaryFailed, id, slog.String("kind", "spawn"), slog.String("error", err.Error()))
			return
		}
		d.Log().Info(EvSummaryStarting, id, slog.Int("pid", pid))
	}
}

// StartBackground starts bin with args detached: a new session, no
// terminal, stdio on /dev/null, not waited for.
func StartBackground(bin string, args []string) (pid int, err error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid = cmd.Process.Pid
	_ = cmd.Process.Release()
	return pid, nil
}

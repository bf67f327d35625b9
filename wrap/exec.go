package wrap

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Child is one run of the wrapped program.
type Child struct {
	Path string
	Args []string // without argv[0]
	Dir  string
	Env  []string
	// Interactive is set when stdin is a terminal: the terminal then sends
	// SIGINT and SIGQUIT to the whole foreground process group, child
	// included, so the wrapper must not send a second copy.
	Interactive bool
	// Stdout, when set, receives the child's standard output in place of
	// the wrapper's (a resume attempt whose output may be withheld).
	Stdout io.Writer
}

// ExecFunc runs a child to completion and returns its exit status (128+N
// when a signal ended it). Tests replace it; the real one is Exec.
type ExecFunc func(c Child) (int, error)

// forwarded are the signals passed on to the child. SIGWINCH, SIGTSTP and
// SIGCONT need no forwarding: the child is in the terminal's foreground
// process group and receives them from the kernel directly.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2}

// Exec starts the child on the wrapper's own standard streams (so it keeps
// the terminal), forwards signals sent to the wrapper, and waits.
func Exec(c Child) (int, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Args[0] = c.Path
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if c.Interactive && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue // the terminal already delivered it to the child
				}
				cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return exitStatus(cmd.ProcessState, err)
}

func exitStatus(ps *os.ProcessState, err error) (int, error) {
	if ps == nil {
		return 127, err
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 127, err
	}
	return ps.ExitCode(), nil
}

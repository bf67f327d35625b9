package wrap

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
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
//
// It forks with syscall.ForkExec and reaps with wait4 rather than through
// os/exec: os.StartProcess first probes pidfd support by cloning a
// throw-away child, a third process on every wrapped start, for a pidfd
// the wrapper has no use for (it waits for one child it never signals
// after reaping). What os/exec does for a child given a path is kept: the
// environment (the process's when nil) with later duplicates winning, a
// pipe and a copy for an Stdout that is not a file, exit status 127 with
// the error when the program cannot be started.
func Exec(c Child) (int, error) { return execChild(c, true) }

// ExecExiting is Exec for a process that exits soon after the child has
// (tether-hot's `run`): the forwarded signals stay caught after it
// returns instead of being reset to their defaults, which costs a round
// trip to the Go runtime's signal-mask thread per signal (~0.35 ms of CPU
// for the six, measured). A signal that arrives between the child's end
// and the wrapper's exit is then dropped instead of ending the wrapper,
// which is about to exit with the child's status anyway.
func ExecExiting(c Child) (int, error) { return execChild(c, false) }

func execChild(c Child, resetSignals bool) (int, error) {
	path := c.Path
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return 127, err
		}
		path = p
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	env, err := dedupEnv(env)
	if err != nil {
		return 127, err
	}
	files := []uintptr{0, 1, 2}
	var pipeW *os.File
	var copied chan error
	if c.Stdout != nil {
		if f, ok := c.Stdout.(*os.File); ok {
			files[1] = f.Fd()
		} else {
			r, w, err := os.Pipe()
			if err != nil {
				return 127, err
			}
			defer r.Close()
			pipeW, files[1] = w, w.Fd()
			copied = make(chan error, 1)
			go func() {
				_, err := io.Copy(c.Stdout, r)
				copied <- err
			}()
		}
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	if resetSignals {
		defer signal.Stop(sigs)
	}
	argv := append([]string{c.Path}, c.Args...)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: c.Dir, Env: env, Files: files})
	if pipeW != nil {
		// The child has its own copy: the copy ends with its output.
		pipeW.Close()
	}
	if err != nil {
		if copied != nil {
			<-copied
		}
		return 127, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	var mu sync.Mutex
	exited := false
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				if c.Interactive && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue // the terminal already delivered it to the child
				}
				mu.Lock()
				if !exited {
					syscall.Kill(pid, s.(syscall.Signal))
				}
				mu.Unlock()
			case <-done:
				return
			}
		}
	}()
	code, err := wait(pid, func() {
		mu.Lock()
		exited = true
		mu.Unlock()
	})
	close(done)
	if copied != nil {
		if cerr := <-copied; cerr != nil && err == nil {
			err = cerr
		}
	}
	return code, err
}

// wait waits for pid to exit, calls exited while it is still a zombie (so
// a signal forwarded before that cannot reach another process that got
// its pid), then reaps it and returns its status: 128+N for signal N.
func wait(pid int, exited func()) (int, error) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return 127, err
		}
	}
	exited()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			return 127, err
		}
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ws.ExitStatus(), nil
}

// dedupEnv is os/exec's: the last of duplicate NAME=value entries wins,
// entries that are not NAME=value are kept, empty ones dropped, and one
// holding a NUL byte is refused.
func dedupEnv(env []string) ([]string, error) {
	var err error
	out := make([]string, 0, len(env))
	saw := make(map[string]bool, len(env))
	for n := len(env); n > 0; n-- {
		kv := env[n-1]
		if strings.IndexByte(kv, 0) != -1 {
			err = errors.New("exec: environment variable contains NUL")
			continue
		}
		i := strings.Index(kv, "=")
		if i == 0 {
			i = strings.Index(kv[1:], "=") + 1
		}
		if i < 0 {
			if kv != "" {
				out = append(out, kv)
			}
			continue
		}
		if saw[kv[:i]] {
			continue
		}
		saw[kv[:i]] = true
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, err
}

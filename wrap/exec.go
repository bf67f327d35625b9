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
	"time"
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
	// Stdin, when set, is the child's standard input in place of the
	// wrapper's, through a pipe fed by a copy (a prompt the wrapper kept
	// to send again). Nothing waits for the copy: it ends when Stdin does
	// or when the child has closed its end.
	Stdin io.Reader
	// Stdout, when set, receives the child's standard output in place of
	// the wrapper's (a resume attempt whose output may be withheld).
	Stdout io.Writer
	// Stderr, when set, receives the child's standard error in place of
	// the wrapper's: a copy passed on (a resume whose failure message the
	// wrapper must read). Its copying outlives a child that leaves a
	// process holding the pipe by at most stderrDrain.
	Stderr io.Writer
	// OnSignal, when set, is told of each signal the wrapper received
	// while the child ran, forwarded or (SIGINT and SIGQUIT from the
	// terminal) already delivered to it: the user ended the run.
	OnSignal func(os.Signal)
}

// stderrDrain bounds the wait for the end of a child's copied standard
// error once the child has exited: a background process it started may
// hold the pipe for good. What such a process writes later is still
// copied for as long as the wrapper runs.
const stderrDrain = 2 * time.Second

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
	var pipeW, errW, inR *os.File
	if c.Stdin != nil {
		if files[0], inR, err = feed(c.Stdin); err != nil {
			return 127, err
		}
	}
	var copied, errCopied chan error
	if c.Stdout != nil {
		if files[1], pipeW, copied, err = redirect(c.Stdout); err != nil {
			closeFile(inR)
			return 127, err
		}
	}
	if c.Stderr != nil {
		if files[2], errW, errCopied, err = redirect(c.Stderr); err != nil {
			if pipeW != nil {
				pipeW.Close()
				<-copied
			}
			closeFile(inR)
			return 127, err
		}
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	if resetSignals {
		defer signal.Stop(sigs)
	}
	argv := append([]string{c.Path}, c.Args...)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: c.Dir, Env: env, Files: files})
	// The child has its own copies: each copy ends with its output.
	for _, f := range []*os.File{pipeW, errW, inR} {
		closeFile(f)
	}
	if err != nil {
		for _, ch := range []chan error{copied, errCopied} {
			if ch != nil {
				<-ch
			}
		}
		return 127, &os.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	var mu sync.Mutex
	exited := false
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case s := <-sigs:
				if c.OnSignal != nil {
					c.OnSignal(s)
				}
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
	<-stopped
	// A signal that came with the child's end (the terminal's SIGINT
	// reaches both at once) still says the user ended the run.
	for c.OnSignal != nil && len(sigs) > 0 {
		c.OnSignal(<-sigs)
	}
	if copied != nil {
		if cerr := <-copied; cerr != nil && err == nil {
			err = cerr
		}
	}
	if errCopied != nil {
		select {
		case <-errCopied:
		case <-time.After(stderrDrain):
		}
	}
	return code, err
}

// redirect gives the child w as an output: a file directly, anything else
// through a pipe and a copy that ends (sending its error on done) when
// every holder of the pipe's write end has closed it. w, the write end,
// is for the child only: close it once the child has its copy.
func redirect(w io.Writer) (fd uintptr, pw *os.File, done chan error, err error) {
	if f, ok := w.(*os.File); ok {
		return f.Fd(), nil, nil, nil
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return 0, nil, nil, err
	}
	done = make(chan error, 1)
	go func() {
		_, err := io.Copy(w, r)
		r.Close()
		done <- err
	}()
	return pw.Fd(), pw, done, nil
}

// feed gives the child r as its standard input: a pipe whose write end a
// copy fills and then closes (the child sees the end of its input). pr,
// the read end, is for the child only: close it once the child has its
// copy; a child that exits without reading all of it makes the copy's
// next write fail, which ends it.
func feed(r io.Reader) (fd uintptr, pr *os.File, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	go func() {
		io.Copy(pw, r)
		pw.Close()
	}()
	return pr.Fd(), pr, nil
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// wait waits for pid to exit, calls exited while it is still a zombie (so
// a signal forwarded before that cannot reach another process that got
// its pid), then reaps it and returns its status: 128+N for signal N.
func wait(pid int, exited func()) (int, error) {
	if err := waitExited(pid); err != nil {
		return 127, err
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

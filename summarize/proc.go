package summarize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// maxOutput caps what a provider may print, as the anthropic provider
// caps its reply: a summary is a few hundred bytes, and an unbounded
// buffer let a runaway provider take gigabytes.
const maxOutput = 4 << 20

// maxStderr is how much of a provider's stderr is kept (the end: its last
// line goes into the error).
const maxStderr = 64 << 10

// waitDelay bounds the wait for a provider's pipes once it has exited or
// been killed: a child it left behind holding them would otherwise make
// the wait last as long as that child.
const waitDelay = 2 * time.Second

// errTooLarge is the output cap's error.
var errTooLarge = fmt.Errorf("output larger than %d MiB", maxOutput>>20)

// proc is a provider program run in its own process group, so that the
// timeout (or an interrupt) kills it and every child it started, and its
// output bounded.
type proc struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	out    *capBuffer
	errb   *capBuffer
}

// newProc prepares argv with env and stdin. combined sends stderr to the
// stdout buffer (for --help).
func newProc(ctx context.Context, argv, env []string, stdin string, combined bool) *proc {
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// The temp dir: no project files are picked up there.
	cmd.Dir = os.TempDir()
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &proc{cmd: cmd, cancel: cancel}
	cmd.Cancel = p.killGroup
	cmd.WaitDelay = waitDelay
	// Past the cap the context is cancelled: the group is killed rather
	// than left writing into a closed pipe.
	p.out = &capBuffer{max: maxOutput, over: cancel}
	p.errb = &capBuffer{max: maxStderr, keepTail: true}
	cmd.Stdout, cmd.Stderr = p.out, p.errb
	if combined {
		cmd.Stderr = p.out
	}
	return p
}

// killGroup kills the provider's process group (its pid is the group's
// id: Setpgid).
func (p *proc) killGroup() error {
	if p.cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// run runs the program to the end. A child left behind (holding the
// pipes past waitDelay, or running on after a timeout) is killed with
// the group. The group is killed after every run: while a member lives
// its id cannot be reused, and once none does the kill finds no one
// (unless, in that instant, a new process took the id and made itself
// a group leader).
func (p *proc) run() error {
	defer p.cancel()
	err := p.cmd.Run()
	if p.cmd.Process != nil {
		_ = p.killGroup()
	}
	if p.out.overflow() {
		return errTooLarge
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited 0; a child held the pipes after it. What
		// it printed is read; the reply is judged on its own.
		return nil
	}
	return err
}

// capBuffer keeps at most max bytes: the first max (reporting overflow
// and calling over once), or with keepTail the last max.
type capBuffer struct {
	mu       sync.Mutex
	b        []byte
	max      int
	keepTail bool
	over     func()
	full     bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keepTail {
		c.b = append(c.b, p...)
		if len(c.b) > c.max {
			c.b = append(c.b[:0], c.b[len(c.b)-c.max:]...)
		}
		return len(p), nil
	}
	if c.full || len(c.b)+len(p) > c.max {
		if !c.full && c.over != nil {
			c.over()
		}
		c.full = true
		return 0, errTooLarge
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

func (c *capBuffer) overflow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.full
}

func (c *capBuffer) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b
}

func (c *capBuffer) String() string { return string(c.Bytes()) }

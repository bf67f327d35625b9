package wrap

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// leaveNotice hands a notice printed before the agent starts to the
// SessionStart hook of the session starting in root (session "" for a
// new one): Claude Code's screen draws over what was printed before it,
// the hook's systemMessage is shown inside it. Without tether's hooks
// nobody takes it and noticeAgain removes it. An agent whose hooks show
// no message (Codex; Capabilities.StartNotice) is left nothing.
func (o Options) leaveNotice(root, session, text string) {
	if o.StateDir == "" || root == "" || !o.Agent.Capabilities().StartNotice {
		return
	}
	state.LeaveNotice(o.StateDir, root, session, text, o.Now())
}

// noticeAgain, once the agent has exited, removes a notice no hook took
// and, when the agent drew its screen over the terminal (an interactive
// run, not -p), prints the notice again where the user now looks.
func (o Options) noticeAgain(root string, res agent.ResumeArgs, text string) {
	if o.StateDir != "" && root != "" {
		state.DropNotice(o.StateDir, root)
	}
	if o.Interactive && !res.Print {
		fmt.Fprintln(o.Stderr, termsafe.String(text))
	}
}

// lastEnv is the value of key in env ("" when unset); the last one wins,
// as in the child's environment.
func lastEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if val, ok := strings.CutPrefix(kv, key+"="); ok {
			v = val
		}
	}
	return v
}

// stderrTail is how much of a resume's stderr is kept to recognise a
// load failure: the agent's message is the last thing it prints.
const stderrTail = 16 << 10

// tailBuffer keeps the last stderrTail bytes written to it. It is written
// by the copy of the child's stderr, which may outlive the child (see
// stderrDrain), and read by the wrapper: hence the lock.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

// bytes is a copy of the last stderrTail bytes (nil for a nil buffer).
func (t *tailBuffer) bytes() []byte {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf[max(0, len(t.buf)-stderrTail):]...)
}

// observeStderr is the child's stderr for a resume by id: the wrapper's
// own, through a copy kept in a tailBuffer, unless it is a terminal,
// which the child keeps (then nothing is observed).
func (o Options) observeStderr() (io.Writer, *tailBuffer) {
	if o.StderrTTY {
		return nil, nil
	}
	dst := o.Stderr
	if dst == nil {
		dst = os.Stderr
	}
	t := &tailBuffer{}
	return tee{dst, t}, t
}

// tee passes the child's stderr on and keeps its tail. A failing
// destination (the user closed it) is the child's business, as it would
// have been without the wrapper: the copy goes on, or the child would
// block on a pipe nobody reads.
type tee struct {
	dst  io.Writer
	tail *tailBuffer
}

func (t tee) Write(p []byte) (int, error) {
	t.dst.Write(p)
	return t.tail.Write(p)
}

// userSignal records the last signal the wrapper received while the child
// ran; the signal goroutine sets it, the wrapper reads it after the wait.
type userSignal struct {
	mu sync.Mutex
	s  os.Signal
}

func (u *userSignal) set(s os.Signal) {
	switch s {
	case syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP:
	default:
		return // SIGUSR1 and SIGUSR2 are passed on, not an end
	}
	u.mu.Lock()
	u.s = s
	u.mu.Unlock()
}

func (u *userSignal) get() os.Signal {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.s
}

package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Tmux is the part of tmux the resume command uses.
type Tmux interface {
	// HasSession reports whether a live tmux session has this name.
	HasSession(name string) bool
	// NewSession starts a detached session running argv in dir.
	NewSession(name, dir string, argv, env []string) error
	// Attach attaches (or, inside tmux, switches) to the session.
	Attach(name string) error
}

// ExecTmux runs the tmux binary.
type ExecTmux struct {
	// Inside is true when this process runs inside tmux ($TMUX set).
	Inside bool
}

// HasSession implements Tmux.
func (t ExecTmux) HasSession(name string) bool {
	return exec.Command("tmux", "has-session", "-t", "="+name).Run() == nil
}

// NewSession implements Tmux.
func (t ExecTmux) NewSession(name, dir string, argv, env []string) error {
	args := []string{"new-session", "-d", "-s", name, "-c", dir}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, argv...)
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux new-session: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// ErrNoTmuxClient is Attach's error when there is no client to attach or
// switch: no terminal, or inside tmux with no attached client.
var ErrNoTmuxClient = errors.New("no tmux client to attach")

// CanAttach reports whether Attach has a client to work with: inside
// tmux, an attached client of this server; outside, a terminal on stdin.
func (t ExecTmux) CanAttach() bool {
	if !t.Inside {
		st, err := os.Stdin.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	out, err := exec.Command("tmux", "display-message", "-p", "#{client_tty}").Output()
	return err == nil && strings.TrimSpace(string(out)) != ""
}

// Attach implements Tmux.
func (t ExecTmux) Attach(name string) error {
	if !t.CanAttach() {
		return ErrNoTmuxClient
	}
	verb := "attach-session"
	if t.Inside {
		verb = "switch-client"
	}
	cmd := exec.Command("tmux", verb, "-t", "="+name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}

// TmuxName makes a tmux session name from s: tmux forbids '.' and ':'.
func TmuxName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '.' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, s)
	if s == "" {
		return "session"
	}
	return s
}

// FreeTmuxName returns base, or base-2, base-3, … when a live tmux
// session already has the name.
func FreeTmuxName(t Tmux, base string) string {
	name := base
	for i := 2; t.HasSession(name) && i < 1000; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

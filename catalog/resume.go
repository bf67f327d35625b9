package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// ShellCommand is the resume spec as one shell command line:
// cd DIR && [ENV=…] ARGV…. It is printed on terminals, so a word holding
// a control character is written as $'…' (shquote.Printable).
func (r ResumeSpec) ShellCommand() string { return r.ShellWith(shquote.Printable) }

// ShellWith is ShellCommand with every word quoted by q (the picker
// prints fish's quoting for fish; `cd DIR && VAR=value cmd` is valid
// there too, fish 3.1+).
func (r ResumeSpec) ShellWith(q func(string) string) string {
	var b strings.Builder
	b.WriteString("cd " + q(r.Dir) + " &&")
	keys := make([]string, 0, len(r.Env))
	for k := range r.Env {
		keys = append(keys, k)
	}
	for _, k := range sortStrings(keys) {
		b.WriteString(" " + k + "=" + q(r.Env[k]))
	}
	for _, a := range r.Argv {
		b.WriteString(" " + q(a))
	}
	return b.String()
}

// EnvList is r.Env as KEY=VALUE entries, sorted.
func (r ResumeSpec) EnvList() []string {
	out := make([]string, 0, len(r.Env))
	for k, v := range r.Env {
		out = append(out, k+"="+v)
	}
	return sortStrings(out)
}

// Via is the one way tether itself resumes a session it found: through
// its own wrapper, self run [flags…] ARGV… ("tether run claude --resume
// ID", "tether run codex resume ID"), so the preflight (running, reset,
// size) and the fallback (missing, stale, prompt too long) apply exactly
// as they do to a resume typed in a shell with the shims. Every resume
// command the catalog builds starts an agent the wrapper knows. Without
// self (tether's executable unknown) the spec is returned unchanged.
func (r ResumeSpec) Via(self string, flags ...string) ResumeSpec {
	if self == "" || len(r.Argv) == 0 {
		return r
	}
	argv := append(append([]string{self, "run"}, flags...), r.Argv...)
	return ResumeSpec{Argv: argv, Dir: r.Dir, Env: r.Env}
}

func sortStrings(s []string) []string {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return sortedKeys(m)
}

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

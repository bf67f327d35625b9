package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/shquote"
)

// ShellCommand is the resume spec as one shell command line:
// cd DIR && [ENV=…] ARGV…. It is printed on terminals, so a word holding
// a control character is written as $'…' (shquote.Printable).
func (r ResumeSpec) ShellCommand() string {
	var b strings.Builder
	b.WriteString("cd ")
	b.WriteString(shquote.Printable(r.Dir))
	b.WriteString(" &&")
	keys := make([]string, 0, len(r.Env))
	for k := range r.Env {
		keys = append(keys, k)
	}
	for _, k := range sortStrings(keys) {
		b.WriteString(" " + k + "=" + shquote.Printable(r.Env[k]))
	}
	for _, a := range r.Argv {
		b.WriteString(" " + shquote.Printable(a))
	}
	return b.String()
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

// Attach implements Tmux.
func (t ExecTmux) Attach(name string) error {
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

// Binding remembers where a session was last opened.
type Binding struct {
	Tmux    string    `json:"tmux"`
	Dir     string    `json:"dir"`
	Updated time.Time `json:"updated"`
}

// Bindings is $XDG_STATE_HOME/tether/bindings.json, keyed by session key
// (harness:id).
type Bindings struct {
	Version  int                `json:"version"`
	Sessions map[string]Binding `json:"sessions"`
}

// LoadBindings reads the bindings file; a missing file is empty. A file
// that does not parse is an error naming it, so it is never overwritten.
func LoadBindings(path string) (Bindings, error) {
	b := Bindings{Version: 1, Sessions: map[string]Binding{}}
	data, err := os.ReadFile(path)
	if isNotExist(err) {
		return b, nil
	}
	if err != nil {
		return b, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%s: not a bindings file: %w", path, err)
	}
	if b.Sessions == nil {
		b.Sessions = map[string]Binding{}
	}
	return b, nil
}

// Save writes the bindings atomically.
func (b Bindings) Save(path string) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

package picker

import (
	"slices"

	"github.com/tether-dev/tether/catalog"
)

// Kind is what the user chose to do when the picker ended.
type Kind int

// The ways the picker ends.
const (
	Cancel     Kind = iota // Esc or Ctrl-C: nothing
	Resume                 // run the resume command here, in place of tether
	Print                  // print the resume command and exit
	TmuxWindow             // resume in a new tmux window
	Attach                 // go to the tmux pane where the session runs
	Fork                   // resume as a new session branched from this one
)

// Result is how the picker ended.
type Result struct {
	Kind    Kind
	Session catalog.Session
}

// Command is a command line to run in a directory: a resume spec.
type Command = catalog.ResumeSpec

// ResumeCommand is the command that continues s through tether's wrapper
// (self is tether's executable): `tether run claude --resume ID` or
// `tether run codex resume ID` in the session's directory, so the wrapper's
// preflight, trimming over the threshold and fresh-start fallback apply.
// With fork, a new session branched from s starts instead: Claude Code's
// `claude --resume ID --fork-session`, Codex's `codex fork ID` (0.171).
func ResumeCommand(self string, s catalog.Session, fork bool) Command {
	resume := s.Resume.Argv
	if fork && s.Harness == catalog.Codex && len(resume) == 3 && resume[1] == "resume" {
		resume = []string{resume[0], "fork", resume[2]}
	}
	if fork && s.Harness == catalog.ClaudeCode {
		resume = append(slices.Clip(resume), "--fork-session")
	}
	return Command{Dir: s.Resume.Dir, Argv: resume, Env: s.Resume.Env}.Via(self)
}

// CanFork reports whether s's harness can branch a session: Claude Code
// (--fork-session) and Codex (codex fork, in the pinned 0.171; the key is
// hidden for a resume command of another shape).
func CanFork(s catalog.Session) bool {
	switch s.Harness {
	case catalog.ClaudeCode:
		return true
	case catalog.Codex:
		a := s.Resume.Argv
		return len(a) == 3 && a[1] == "resume"
	}
	return false
}

// CanTrim reports whether tether can trim s (Claude Code transcripts only).
func CanTrim(s catalog.Session) bool { return s.Harness == catalog.ClaudeCode }

// TmuxWindowArgs are the tmux arguments that run c in a new window of the
// current tmux session, named name.
func TmuxWindowArgs(c Command, name string) []string {
	args := []string{"new-window", "-n", name, "-c", c.Dir}
	for _, e := range c.EnvList() {
		args = append(args, "-e", e)
	}
	return append(append(args, "--"), c.Argv...)
}

// TmuxAttachArgs are the tmux commands (one argument list each) that bring
// the pane target ("session:@window.%pane") to the front: select its window
// and pane, then switch this client to it (inside tmux) or attach.
func TmuxAttachArgs(target string, insideTmux bool) [][]string {
	verb := "attach-session"
	if insideTmux {
		verb = "switch-client"
	}
	return [][]string{
		{"select-window", "-t", target},
		{"select-pane", "-t", target},
		{verb, "-t", target},
	}
}

// tmuxTarget is where s runs in tmux ("" when not known).
func tmuxTarget(s *catalog.Session) string {
	if s.State != catalog.StateRunning || s.Runtime == nil {
		return ""
	}
	if s.Runtime.TmuxTarget != "" {
		return s.Runtime.TmuxTarget
	}
	return s.Runtime.Tmux
}

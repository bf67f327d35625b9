package picker

import (
	"github.com/tether-dev/tether/agent"
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

// ResumeCommand is the command that continues s, a session of a, through
// tether's wrapper (self is tether's executable): `tether run claude
// --resume ID` or `tether run codex resume ID` in the session's
// directory, so the wrapper's preflight, trimming over the threshold and
// fresh-start fallback apply. With fork, a new session branched from s
// starts instead, by the agent's own command (Claude Code's `claude
// --resume ID --fork-session`, Codex's `codex fork ID`).
func ResumeCommand(self string, a agent.Agent, s catalog.Session, fork bool) Command {
	resume := s.Resume.Argv
	if fork && canFork(a) {
		resume, _ = a.Resume(s.ID, s.Resume.Dir, true)
	}
	return Command{Dir: s.Resume.Dir, Argv: resume, Env: s.Resume.Env}.Via(self)
}

// canFork reports whether a (nil: unknown) can branch a session.
func canFork(a agent.Agent) bool { return a != nil && a.Capabilities().Fork }

// canTrim reports whether tether can trim the sessions of a (nil:
// unknown).
func canTrim(a agent.Agent) bool { return a != nil && a.Capabilities().Trim }

// agentOf is the agent s belongs to (nil when the picker knows none).
func (m *Model) agentOf(s *catalog.Session) agent.Agent { return m.opts.Agents.Get(s.Harness) }

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

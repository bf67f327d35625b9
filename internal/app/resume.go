package app

import (
	"errors"
	"fmt"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
)

// wrappedResume is the one way tether resumes a session it found: through
// its own wrapper ("tether run claude --resume ID", "tether run codex
// resume ID"), so the preflight (running, reset, size) and the fallback
// (missing, stale, prompt too long) apply exactly as they do to a resume
// typed in a shell with the shims. sessions resume execs it, --tmux runs
// it in the tmux window, and the picker is to use it too.
func wrappedResume(self string, spec catalog.ResumeSpec, force bool) []string {
	if self == "" || len(spec.Argv) == 0 {
		return spec.Argv
	}
	if _, ok := shimNames[spec.Argv[0]]; !ok {
		return spec.Argv
	}
	argv := []string{self, "run"}
	if force {
		argv = append(argv, "--force")
	}
	return append(argv, spec.Argv...)
}

// attachable is implemented by a Tmux that can tell, before trying,
// whether there is a client to attach or switch.
type attachable interface{ CanAttach() bool }

// attachOrSay attaches to the tmux session name when a client can; when
// none can (no terminal, or inside tmux without an attached client) it
// says in one line where the session runs and how to attach.
func attachOrSay(opts sessionsResumeOptions, key, short, name string) error {
	how := fmt.Sprintf("tether: session %s runs in tmux session %s; attach with: tmux attach -t %s",
		termsafe.String(short), termsafe.String(name), shquote.Printable("="+name))
	if a, ok := opts.Tmux.(attachable); ok && !a.CanAttach() {
		fmt.Fprintln(opts.IO.ErrOut, how)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "tether: resumed %s in tmux session %s\n", termsafe.String(key), termsafe.String(name))
	if err := opts.Tmux.Attach(name); err != nil {
		if errors.Is(err, catalog.ErrNoTmuxClient) {
			fmt.Fprintln(opts.IO.ErrOut, how)
			return nil
		}
		return err
	}
	return nil
}

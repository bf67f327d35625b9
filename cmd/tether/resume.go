package main

import (
	"errors"
	"fmt"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
)

// viaWrapper is the session's resume command run through tether's
// wrapper (catalog.ResumeSpec.Via), with --force when asked.
func viaWrapper(self string, spec catalog.ResumeSpec, force bool) catalog.ResumeSpec {
	if force {
		return spec.Via(self, "--force")
	}
	return spec.Via(self)
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

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
)

func runHooksStatus(opts hooksOptions) error {
	w := opts.IO.Out
	if opts.OnPath != "" {
		fmt.Fprintf(w, "tether on PATH: %s\n", opts.OnPath)
	} else {
		fmt.Fprintf(w, "tether on PATH: none (hooks installed now would run %s)\n", opts.Tether)
	}
	any := false
	for _, t := range hookTargets(opts.Agents, opts.RootDir) {
		data, err := os.ReadFile(t.path)
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "%-11s %-7s %s: no file\n", t.harness, t.scope, t.path)
			continue
		}
		if err != nil {
			fmt.Fprintf(w, "%-11s %-7s %s: %v\n", t.harness, t.scope, t.path, err)
			continue
		}
		owner := ownerFor(opts.StateDir, t, opts.Tether, opts.Agents)
		entries, err := hooks.Installed(data, owner)
		if err != nil {
			fmt.Fprintf(w, "%-11s %-7s %s: cannot read: %v\n", t.harness, t.scope, t.path, err)
			continue
		}
		sl := gjson.GetBytes(data, "statusLine.command").String()
		if len(entries) == 0 && !owner.Owns(sl, "statusline") {
			fmt.Fprintf(w, "%-11s %-7s %s: not installed\n", t.harness, t.scope, t.path)
			continue
		}
		any = true
		var events []string
		cmds := map[string]bool{}
		for _, e := range entries {
			events = append(events, e.Event)
			cmds[e.Command] = true
		}
		fmt.Fprintf(w, "%-11s %-7s %s: %s\n", t.harness, t.scope, t.path, strings.Join(events, ", "))
		if owner.Owns(sl, "statusline") {
			cmds[sl] = true
			fmt.Fprintf(w, "%-19s statusLine: %s\n", "", sl)
		}
		for c := range cmds {
			fmt.Fprintf(w, "%-19s runs %s (%s)\n", "", c, binaryVerdict(c, opts.OnPath))
		}
	}
	for _, t := range pluginTargets(opts.Agents, opts.RootDir) {
		if pluginStatus(opts, t) {
			any = true
		}
	}
	if !any {
		fmt.Fprintln(w, "no tether hooks installed; 'tether hooks install' adds them")
	}
	return nil
}

// binaryVerdict says whether a hook command's program is the tether on
// PATH.
func binaryVerdict(command, onPath string) string {
	prog := hooks.Program(command)
	if prog == "" {
		return "empty"
	}
	if !filepath.IsAbs(prog) {
		if onPath == "" {
			return "not found on PATH"
		}
		return "found on PATH"
	}
	if _, err := os.Stat(prog); err != nil {
		return "MISSING: the binary does not exist; reinstall"
	}
	if onPath == "" {
		return "exists; no tether on PATH"
	}
	a, _ := filepath.EvalSymlinks(prog)
	b, _ := filepath.EvalSymlinks(onPath)
	h, _ := filepath.EvalSymlinks(hot.Sibling(onPath))
	if a == b || a == h {
		return "the tether on PATH"
	}
	return "differs from the tether on PATH " + onPath
}

// pluginStatus prints the state of one plugin file and reports whether
// tether's plugin is installed there.
func pluginStatus(opts hooksOptions, t pluginTarget) bool {
	w := opts.IO.Out
	name := t.inst.Name()
	p, err := hooks.ReadPlugin(t.inst, t.path)
	switch {
	case err != nil:
		fmt.Fprintf(w, "%-11s %-7s %s\n", name, t.scope, termsafe.String(err.Error()))
		return false
	case !p.Exists:
		fmt.Fprintf(w, "%-11s %-7s %s: no file\n", name, t.scope, termsafe.String(t.path))
		return false
	case !p.Ours:
		fmt.Fprintf(w, "%-11s %-7s %s: not tether's (left alone)\n", name, t.scope, termsafe.String(t.path))
		return false
	}
	fmt.Fprintf(w, "%-11s %-7s %s: plugin\n", name, t.scope, termsafe.String(t.path))
	if len(p.Command) == 0 {
		fmt.Fprintf(w, "%-19s runs no command it can read; reinstall\n", "")
		return true
	}
	verdict := binaryVerdict(shquote.Join(p.Command), opts.OnPath)
	if !bytes.Equal(p.Data, t.inst.Plugin(p.Command)) {
		verdict += "; written by another tether version: 'tether hooks install" + harnessFlag(name) + scopeFlag(t.scope) + "' updates it"
	}
	fmt.Fprintf(w, "%-19s runs %s (%s)\n", "", termsafe.String(shquote.Join(p.Command)), verdict)
	return true
}

// scopeFlag is the --scope flag of scope ("" for the default, user).
func scopeFlag(scope string) string {
	if scope == "user" {
		return ""
	}
	return " --scope " + scope
}

package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// An agent whose events reach tether through a plugin file
// (agent.PluginInstaller: OpenCode) is installed differently from one
// with hook settings: tether writes the whole file and removes it, and
// it is tether's by its marker line, not by a record of entries. The
// record still notes the command it runs and the directories install
// created, so uninstall leaves the tree as it found it.

// pluginInstaller is the agent named harness when its hooks are a plugin
// (nil otherwise).
func pluginInstaller(agents agent.Registry, harness string) agent.PluginInstaller {
	p, _ := agents.Get(harness).(agent.PluginInstaller)
	return p
}

// pluginCommand is the command tether's plugin runs: the hot binary next
// to tether (as tetherCommand), then the agent's hook arguments.
func pluginCommand(tether string, p agent.PluginInstaller) []string {
	return append([]string{hot.Sibling(tether)}, strings.Fields(p.HookArgs())...)
}

// pluginTarget is one plugin file of an agent.
type pluginTarget struct {
	scope, path string
	inst        agent.PluginInstaller
}

// pluginTargets are every plugin file of every agent, in order (a scope
// without a path, such as project outside any project, is left out).
func pluginTargets(agents agent.Registry, project string) []pluginTarget {
	var out []pluginTarget
	for _, p := range agents.PluginInstallers() {
		for _, scope := range p.PluginScopes() {
			if path := p.PluginFile(scope, project); path != "" {
				out = append(out, pluginTarget{scope, path, p})
			}
		}
	}
	return out
}

func runPlugin(opts hooksOptions, p agent.PluginInstaller) error {
	if scopes := p.PluginScopes(); !slices.Contains(scopes, opts.Scope) {
		return usageErr(fmt.Errorf("--scope %s: %s plugins are installed in %s", opts.Scope, p.Name(), strings.Join(scopes, " or ")))
	}
	if opts.StatusLine || opts.Trust {
		return usageErr(fmt.Errorf("--statusline and --trust do not apply to %s (its hooks are a plugin)", p.Name()))
	}
	path := p.PluginFile(opts.Scope, opts.RootDir)
	if path == "" {
		return usageErr(fmt.Errorf("--scope %s: no directory for %s's plugin here", opts.Scope, p.Name()))
	}
	rec, err := state.LoadHooksRecord(opts.StateDir)
	if err != nil {
		return fmt.Errorf("read the record of installed hooks: %w", err)
	}
	key := state.HooksRecordKey(path)
	command := pluginCommand(opts.Tether, p)
	var plan hooks.PluginPlan
	if opts.Action == "install" {
		plan, err = hooks.InstallPlugin(p, path, p.Plugin(command), opts.DryRun)
	} else {
		var created []string
		if fr := rec.Files[key]; fr != nil {
			created = fr.CreatedDirs
		}
		plan, err = hooks.UninstallPlugin(p, path, created, opts.DryRun)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "%s %s plugin: %s\n", p.Name(), opts.Scope, termsafe.String(path))
	switch {
	case errors.Is(err, hooks.ErrNotOurs) && opts.Action == "uninstall":
		// Nothing of tether's is there: the user's file stays.
		fmt.Fprintln(w, "  nothing to change")
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: %s; left alone\n", termsafe.String(err.Error()))
		return nil
	case err != nil:
		return exitcode.With(exitcode.Refused, fmt.Errorf("%s; left untouched", termsafe.String(err.Error())))
	}
	printPluginPlan(opts.IO.Out, plan, opts.DryRun)
	if opts.DryRun || !plan.Changed() {
		return nil
	}
	if opts.Action == "install" {
		fr := rec.Remember(key, shquote.Join(command))
		for _, d := range plan.Created {
			if !slices.Contains(fr.CreatedDirs, d) {
				fr.CreatedDirs = append(fr.CreatedDirs, d)
			}
		}
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: %s loads it at its next start. Before loading any plugin it installs @opencode-ai/plugin into that config directory (npm; offline it waits for npm's retries, about 70 s, at every start): tether's plugin imports nothing from it.\n", p.Name())
	} else {
		delete(rec.Files, key)
	}
	if err := rec.Save(opts.StateDir); err != nil {
		return fmt.Errorf("record the installed hooks: %w", err)
	}
	return nil
}

func printPluginPlan(w interface{ Write([]byte) (int, error) }, plan hooks.PluginPlan, dryRun bool) {
	would := ""
	if dryRun {
		would = "would be "
	}
	switch plan.Action {
	case "unchanged", "absent":
		fmt.Fprintln(w, "  nothing to change")
	default:
		fmt.Fprintf(w, "  %s%s\n", would, plan.Action)
	}
	for _, d := range plan.Created {
		fmt.Fprintf(w, "  %screated: %s\n", would, termsafe.String(d))
	}
	for _, d := range plan.Removed {
		fmt.Fprintf(w, "  removed empty %s\n", termsafe.String(d))
	}
}

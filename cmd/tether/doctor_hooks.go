package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/hooks/codextrust"
	"github.com/tether-dev/tether/state"
)

// hooksChecks report whether tether's hooks are installed (in any Claude
// Code scope or for Codex), whether they run a tether that exists — this
// one, ideally — and whether Claude's statusLine is tether's. A hook
// pointing at a binary that no longer exists is fixed by --fix, which
// installs the hooks of that scope again.
func hooksChecks(opts doctorOptions, add func(status, name string, fix func() error, format string, args ...any)) {
	self, _ := opts.Executable()
	installed := 0
	statusLine, ownStatusLine := "", false
	agents := hot.AgentsAt(opts.Loc)
	for _, t := range hookTargets(agents, opts.Root.Dir) {
		// Names fit doctor's 10-column name field: the first agent's
		// (Claude Code's) by scope, another's by its command.
		name := map[string]string{"user": "hooks", "project": "hooks:proj", "local": "hooks:loc"}[t.scope]
		if t.inst != agents.HookInstallers()[0] {
			name = t.inst.Command() + " hook"
		}
		data, err := os.ReadFile(t.path)
		if errors.Is(err, fs.ErrNotExist) || (t.scope != "user" && opts.Root.Dir == "") {
			continue
		}
		if err != nil {
			add("warn", name, nil, "cannot read %s: %v", t.path, err)
			continue
		}
		owner := ownerFor(opts.Loc.StateDir, t, self, agents)
		entries, err := hooks.Installed(data, owner)
		if err != nil {
			add("warn", name, nil, "%s: %v", t.path, err)
			continue
		}
		if _, ok := t.inst.(agent.StatusLiner); ok && statusLine == "" {
			statusLine = gjson.GetBytes(data, "statusLine.command").String()
			ownStatusLine = owner.Owns(statusLine, "statusline")
		}
		if len(entries) == 0 {
			continue
		}
		installed++
		progs := map[string]bool{}
		for _, e := range entries {
			progs[hooks.Program(e.Command)] = true
		}
		var list []string
		for p := range progs {
			list = append(list, p)
		}
		sort.Strings(list)
		status, detail := "ok", fmt.Sprintf("%d %s in %s, running %s", len(entries), plural(len(entries), "hook", "hooks"), t.path, list[0])
		var fix func() error
		for _, p := range list {
			path := p
			if !filepath.IsAbs(p) {
				if found, err := opts.LookPath(p); err == nil {
					path = found
				} else {
					path = ""
				}
			}
			switch {
			case path == "" || !exists(path):
				status, detail = "fail", fmt.Sprintf("%s runs %s, which does not exist — 'tether hooks install --scope %s%s' points them at this tether", t.path, p, t.scope, harnessFlag(t.harness))
				if opts.ReinstallHooks != nil {
					h, s, trust := t.harness, t.scope, t.harness == agent.Codex && state.CodexInstalledWithTrust(opts.Loc.StateDir, t.path)
					fix = func() error { return opts.ReinstallHooks(h, s, false, trust) }
				}
			case self != "" && !sameFile(path, self) && !sameFile(path, hot.Sibling(self)) && status == "ok":
				status, detail = "warn", fmt.Sprintf("%s runs %s, another tether than this one (%s)", t.path, p, self)
			}
		}
		if t.harness == agent.Codex && status != "fail" {
			status, detail, fix = codexTrustCheck(opts, t.path, data, owner, status, detail)
		}
		add(status, name, fix, "%s", detail)
	}
	for _, t := range pluginTargets(agents, opts.Root.Dir) {
		if pluginCheck(opts, t, self, add) {
			installed++
		}
	}
	if installed == 0 {
		add("warn", "hooks", nil, "not installed — 'tether hooks install' (or ./install.sh --hooks) logs sessions and feeds the context gauge in the prompt")
	}
	switch {
	case ownStatusLine:
		prog := hooks.Program(statusLine)
		if _, err := opts.LookPath(prog); err == nil || filepath.IsAbs(prog) && exists(prog) {
			add("ok", "statusLine", nil, "%s", statusLine)
			break
		}
		var fix func() error
		if opts.ReinstallHooks != nil {
			fix = func() error { return opts.ReinstallHooks(agents.StatusLiner().Name(), "user", true, false) }
		}
		add("fail", "statusLine", fix, "%s: %s does not exist — 'tether hooks install --statusline' points it at this tether", statusLine, prog)
	case statusLine != "":
		add("ok", "statusLine", nil, "yours (%s); tether takes context windows from its model table", statusLine)
	default:
		add("warn", "statusLine", nil, "not set — 'tether hooks install --statusline' shows context use in Claude Code and records the real context window")
	}
}

// codexTrustCheck adds to the codex hook line whether Codex will run the
// hooks: each needs a trust record in config.toml whose hash is the one
// Codex computes for it now. A hook changed after it was trusted (a moved
// binary re-pointed by --fix) is skipped by Codex without a word.
func codexTrustCheck(opts doctorOptions, hooksPath string, data []byte, owner hooks.Owner, status, detail string) (string, string, func() error) {
	want, err := codextrust.CodexTrust(hooksPath, data, owner)
	if err != nil {
		return "warn", fmt.Sprintf("%s; cannot compute Codex's trust hashes: %v", detail, err), nil
	}
	cfgPath := filepath.Join(opts.Loc.CodexDir, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "warn", fmt.Sprintf("%s; cannot read %s: %v", detail, cfgPath, err), nil
	}
	ts, err := codextrust.CheckCodexTrust(cfg, want)
	if err != nil {
		return "warn", fmt.Sprintf("%s; %s: %v", detail, cfgPath, err), nil
	}
	if ts.Trusted() {
		return status, detail + ", trusted", nil
	}
	var fix func() error
	retrust := state.CodexInstalledWithTrust(opts.Loc.StateDir, hooksPath)
	if retrust && opts.ReinstallHooks != nil {
		fix = func() error { return opts.ReinstallHooks(agent.Codex, "user", false, true) }
	}
	how := "review them in the Codex TUI (\"Hooks need review\") or 'tether hooks install --harness codex --trust'"
	if retrust {
		how = "'tether doctor --fix' trusts them again (tether installed them with --trust)"
	}
	if ts.Stale == 0 && ts.Missing == ts.Want {
		return "warn", fmt.Sprintf("%s; not trusted by Codex yet — Codex skips them until then ('codex exec' silently): %s", detail, how), fix
	}
	return "fail", fmt.Sprintf("%s; %d of %d not trusted by Codex (trust hash in %s does not match the hook) — Codex skips them: %s",
		detail, ts.Stale+ts.Missing, ts.Want, cfgPath, how), fix
}

// harnessFlag is the --harness flag that installs h's hooks ("" for the
// flag's default).
func harnessFlag(h string) string {
	if h == hot.HarnessClaude {
		return ""
	}
	return " --harness " + h
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// pluginCheck reports on tether's plugin at one plugin path (nothing
// when none is there) and whether it is installed: that it runs a binary
// that exists (--fix installs it again when not), this tether's, and is
// what this tether writes.
func pluginCheck(opts doctorOptions, t pluginTarget, self string, add func(status, name string, fix func() error, format string, args ...any)) bool {
	name := t.inst.Command()
	if t.scope != "user" {
		name += ":" + t.scope[:1]
	}
	p, err := hooks.ReadPlugin(t.inst, t.path)
	if err != nil {
		add("warn", name, nil, "%v", err)
		return false
	}
	if !p.Exists || !p.Ours {
		return false
	}
	reinstall := "'tether hooks install" + harnessFlag(t.inst.Name()) + scopeFlag(t.scope) + "'"
	var fix func() error
	if opts.ReinstallHooks != nil {
		h, s := t.inst.Name(), t.scope
		fix = func() error { return opts.ReinstallHooks(h, s, false, false) }
	}
	if len(p.Command) == 0 {
		add("fail", name, fix, "%s: tether's plugin names no command it can read — %s writes it again", t.path, reinstall)
		return true
	}
	prog := p.Command[0]
	switch {
	case !exists(prog):
		add("fail", name, fix, "%s runs %s, which does not exist — %s points it at this tether", t.path, prog, reinstall)
	case !bytes.Equal(p.Data, t.inst.Plugin(p.Command)):
		add("warn", name, fix, "%s was written by another tether version — %s updates it", t.path, reinstall)
	case self != "" && !sameFile(prog, self) && !sameFile(prog, hot.Sibling(self)):
		add("warn", name, nil, "%s runs %s, another tether than this one (%s)", t.path, prog, self)
	default:
		add("ok", name, nil, "plugin %s, running %s", t.path, prog)
	}
	if w, ok := t.inst.(pluginWaiter); ok && opts.Shell.Getenv != nil {
		if why := w.PluginWait(t.path, opts.Loc.Home, opts.Shell.Getenv); why != "" {
			add("warn", name, nil, "%s", why)
		}
	}
	return true
}

// pluginWaiter is an agent that may wait at its start because of a
// plugin directory (OpenCode: npm), and says why.
type pluginWaiter interface {
	PluginWait(path, home string, getenv func(string) string) string
}

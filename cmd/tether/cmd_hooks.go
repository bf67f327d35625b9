package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/hooks/codextrust"
	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// envClaudeBin names the claude binary whose version decides the events
// installed (tests and unusual installs set it).
const envClaudeBin = "TETHER_CLAUDE_BIN"

type hooksOptions struct {
	IO         *iostreams.IOStreams
	Action     string // install, uninstall, status
	Scope      string // user, project, local
	Harness    string // claude-code, codex
	DryRun     bool
	StatusLine bool
	Force      bool
	Trust      bool

	// Agents are the agents tether knows: the ones with hook settings
	// (agent.HookInstaller) say where those are and what goes there.
	Agents  agent.Registry
	RootDir string // the identity root, for project and local scope
	// StateDir is where the record of what install wrote lives (the
	// commands, the replaced statusLine, the Codex hooks trusted).
	StateDir string

	// ClaudeVersion, when set, is used instead of running ClaudeBin.
	ClaudeVersion string
	ClaudeBin     string
	// Tether is the tether binary the hook commands run.
	Tether string
	// OnPath is the tether found on PATH ("" when none), for status.
	OnPath string
}

func (a *App) hooksCommand() *cli.Command {
	scope := choice(&cli.StringFlag{Name: "scope", Value: "user", Usage: "Claude Code settings to edit: `user` (~/.claude/settings.json), project (.claude/settings.json) or local (.claude/settings.local.json); OpenCode: user (~/.config/opencode/plugins/) or project (.opencode/plugins/)"},
		"user", "project", "local")
	harness := choice(&cli.StringFlag{Name: "harness", Value: "claude-code", Usage: "`claude-code` (alias claude), codex ($CODEX_HOME/hooks.json) or opencode (a plugin file)"},
		hot.HarnessClaude, hot.HarnessCodex, agent.OpenCode)
	dry := &cli.BoolFlag{Name: "dry-run", Usage: "print what would change and the resulting file; write nothing"}
	action := func(name string) cli.ActionFunc {
		return func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usageErr(fmt.Errorf("hooks %s takes no arguments, got %q", name, cmd.Args().First()))
			}
			opts := hooksOptions{
				IO: a.IO, Action: name, Scope: cmd.String("scope"), Harness: hot.NormalizeHarness(cmd.String("harness")),
				DryRun: cmd.Bool("dry-run"), StatusLine: cmd.Bool("statusline"), Force: cmd.Bool("force"), Trust: cmd.Bool("trust"),
				Agents: a.Agents(), RootDir: a.Root().Dir, StateDir: a.Loc.StateDir,
				ClaudeVersion: cmd.String("claude-version"), ClaudeBin: a.Getenv(envClaudeBin),
			}
			if name == "status" {
				opts.OnPath, opts.Tether = tetherBinary(a.Getenv("PATH"))
				return runHooks(ctx, opts)
			}
			switch opts.Scope {
			case "user", "project", "local":
			default:
				return usageErr(fmt.Errorf("--scope: want user, project or local, got %q", opts.Scope))
			}
			opts.OnPath, opts.Tether = tetherBinary(a.Getenv("PATH"))
			if p := pluginInstaller(opts.Agents, opts.Harness); p != nil {
				return runPlugin(opts, p)
			}
			inst := hookInstaller(opts.Agents, opts.Harness)
			if inst == nil {
				return usageErr(fmt.Errorf("--harness: want claude-code, codex or opencode, got %q", cmd.String("harness")))
			}
			if scopes := inst.HookScopes(); !slices.Contains(scopes, opts.Scope) {
				return usageErr(fmt.Errorf("--scope %s: %s keeps its hooks only in %s (use --scope %s)",
					opts.Scope, inst.Name(), inst.HookSettings(scopes[0], opts.RootDir), scopes[0]))
			}
			if opts.ClaudeBin == "" {
				opts.ClaudeBin = "claude"
			}
			return runHooks(ctx, opts)
		}
	}
	return &cli.Command{
		Name:  "hooks",
		Usage: "install, remove or show tether's hooks in Claude Code and Codex settings and its OpenCode plugin",
		Description: "Adds hook entries that run 'tether hook' for the lifecycle events (session start,\n" +
			"turn end, failures, compaction, subagents, session end), so they are logged and the\n" +
			"context usage is tracked. Only tether's entries are touched: other hooks, keys and\n" +
			"formatting stay, the previous file is kept as <file>.bak, and uninstall removes\n" +
			"exactly what install added. For OpenCode, which has no hook settings, install\n" +
			"writes one plugin file (tether.js, in its plugins directory) that hands the events\n" +
			"to tether; uninstall removes that file, and only when it is tether's.",
		Commands: []*cli.Command{
			{
				Name:  "install",
				Usage: "add tether's hooks (idempotent)",
				Description: "For Claude Code, the events installed depend on 'claude --version' ($" + envClaudeBin + "\n" +
					"names another binary): Claude Code 2.0.x silently ignores every hook when one\n" +
					"event name is unknown to it, so versions before " + claude.FullEventsSince + " get only SessionStart,\n" +
					"Stop, SubagentStop and SessionEnd.",
				Flags: []cli.Flag{scope, harness, dry,
					&cli.BoolFlag{Name: "statusline", Usage: "also set Claude Code's statusLine to 'tether statusline'"},
					&cli.BoolFlag{Name: "force", Usage: "with --statusline: replace a statusLine that is not tether's"},
					&cli.BoolFlag{Name: "trust", Usage: "Codex: also mark the hooks trusted in config.toml (skips Codex's own review)"},
					&cli.StringFlag{Name: "claude-version", Usage: "install for this Claude Code `VERSION` instead of asking claude"},
				},
				Action: action("install"),
			},
			{
				Name:   "uninstall",
				Usage:  "remove exactly the entries tether added",
				Flags:  []cli.Flag{scope, harness, dry},
				Action: action("uninstall"),
			},
			{
				Name:   "status",
				Usage:  "show where tether's hooks are installed and whether they run this tether",
				Action: action("status"),
			},
		},
	}
}

// tetherBinary returns the tether on PATH (resolved) and the binary hook
// commands should run: that one, else this executable.
func tetherBinary(path string) (onPath, use string) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, "tether")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				onPath = abs
			}
			break
		}
	}
	if onPath != "" {
		return onPath, onPath
	}
	exe, err := os.Executable()
	if err != nil {
		return "", "tether"
	}
	return "", exe
}

// tetherCommand is the one place the command lines tether writes into
// agent settings are made: the hot binary next to tether (tether-hot,
// which starts in a fraction of tether's time) when there is one, quoted,
// then args.
func tetherCommand(tether, args string) string {
	return shquote.Quote(hot.Sibling(tether)) + " " + args
}

// hookTarget is one settings file of an agent's hooks.
type hookTarget struct {
	harness, scope, path string
	inst                 agent.HookInstaller
}

// hookInstaller is the agent named harness when tether's hooks can be
// installed into it (nil otherwise).
func hookInstaller(agents agent.Registry, harness string) agent.HookInstaller {
	inst, _ := agents.Get(harness).(agent.HookInstaller)
	return inst
}

// targetOf is the settings file of inst's hooks in scope (project: the
// project's directory).
func targetOf(inst agent.HookInstaller, scope, project string) hookTarget {
	return hookTarget{inst.Name(), scope, inst.HookSettings(scope, project), inst}
}

// hookTargets are every settings file of every agent's hooks, in order.
func hookTargets(agents agent.Registry, project string) []hookTarget {
	var out []hookTarget
	for _, inst := range agents.HookInstallers() {
		for _, scope := range inst.HookScopes() {
			out = append(out, targetOf(inst, scope, project))
		}
	}
	return out
}

func (o hooksOptions) target() hookTarget {
	return targetOf(hookInstaller(o.Agents, o.Harness), o.Scope, o.RootDir)
}

func runHooks(ctx context.Context, opts hooksOptions) error {
	if opts.Action == "status" {
		return runHooksStatus(opts)
	}
	if p := pluginInstaller(opts.Agents, opts.Harness); p != nil {
		return runPlugin(opts, p)
	}
	t := opts.target()
	old, err := os.ReadFile(t.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", t.path, err)
	}
	rec, err := state.LoadHooksRecord(opts.StateDir)
	if err != nil {
		return fmt.Errorf("read the record of installed hooks: %w", err)
	}
	key := state.HooksRecordKey(t.path)
	hookCmd, slCmd := ownCommands(opts.Tether, t.inst)
	owner := hooks.Owner{Recorded: rec.Commands(key), Current: ownedCommands(opts.Tether, t.inst), Events: hooks.InstallableEvents(opts.Agents)}
	var out []byte
	var plan hooks.Plan
	var notes []string
	if opts.Action == "install" {
		io := hooks.InstallOptions{Timeout: hooks.HookTimeout, Force: opts.Force, Owner: owner, Command: hookCmd}
		// Only an agent whose events depend on its version asks for it
		// (Claude Code: claude --version, or --claude-version).
		asked, version := false, ""
		he := t.inst.HookEvents(func() string {
			if asked, version = true, opts.ClaudeVersion; version == "" {
				version = claudeVersion(ctx, opts.ClaudeBin)
			}
			return version
		})
		io.Events, io.Timeouts = he.Events, he.Timeouts
		switch {
		case he.Reduced != "" && asked && version == "":
			notes = append(notes, fmt.Sprintf("could not run '%s --version': %s; rerun with --claude-version to choose", opts.ClaudeBin, he.Reduced))
		case he.Reduced != "":
			notes = append(notes, he.Reduced)
		}
		if opts.StatusLine {
			io.StatusLine = slCmd // "" for an agent without a status line
		}
		out, plan, err = hooks.Install(old, io)
	} else {
		restore := ""
		if fr := rec.Files[key]; fr != nil {
			restore = fr.UserStatusLine
		}
		out, plan, err = hooks.Uninstall(old, owner, restore)
	}
	if err != nil {
		return exitcode.With(exitcode.Refused, fmt.Errorf("%s: %w; file left untouched", t.path, err))
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "%s %s settings: %s\n", t.harness, t.scope, termsafe.String(t.path))
	printPlan(opts.IO, plan)
	for _, n := range notes {
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: %s\n", n)
	}
	if plan.Replaced != "" && !opts.DryRun {
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: replaced your statusLine (%s): 'tether hooks uninstall' puts it back; [statusline] chain = true in the config shows it beside tether's\n",
			termsafe.String(gjson.Get(plan.Replaced, "command").String()))
	}
	if plan.StatusLine == "kept-user" {
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: kept your statusLine (%s); --force replaces it\n", termsafe.String(gjson.GetBytes(old, "statusLine.command").String()))
	}
	if opts.DryRun {
		if plan.Changed() {
			fmt.Fprintf(w, "--- %s would become:\n%s", termsafe.String(t.path), termsafe.Text(string(out)))
			if len(out) > 0 && out[len(out)-1] != '\n' {
				fmt.Fprintln(w)
			}
		}
	} else if plan.Changed() {
		if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(t.path), err)
		}
		if err := atomicfile.WriteBytes(t.path, out, atomicfile.Options{Perm: 0o600, Backup: ".bak"}); err != nil {
			return fmt.Errorf("write %s: %w", t.path, err)
		}
	}
	if t.harness == agent.Codex {
		// Codex runs hooks only once trusted, in its config.toml.
		if err := codexExtras(opts, t, owner, old, out); err != nil {
			return err
		}
	}
	if opts.DryRun {
		return nil
	}
	return updateRecord(rec, opts.StateDir, key, opts.Action, plan, hookCmd, slCmd)
}

// ownCommands are the hook and statusLine commands this tether writes
// for inst (no statusLine for an agent without a status line).
func ownCommands(tether string, inst agent.HookInstaller) (hook, statusLine string) {
	if _, ok := inst.(agent.StatusLiner); ok {
		statusLine = tetherCommand(tether, "statusline")
	}
	return tetherCommand(tether, inst.HookArgs()), statusLine
}

// ownedCommands are the commands this tether recognises as its own
// without a record: what it writes (through tether-hot when it is next to
// tether) and what the same tether wrote before tether-hot was there.
func ownedCommands(tether string, inst agent.HookInstaller) []string {
	hook, sl := ownCommands(tether, inst)
	q := shquote.Quote(tether)
	plainHook, plainSL := q+" "+inst.HookArgs(), ""
	if sl != "" {
		plainSL = q + " statusline"
	}
	out := []string{hook, sl}
	if plainHook != hook {
		out = append(out, plainHook, plainSL)
	}
	return out
}

// updateRecord notes what install wrote (and the user's statusLine a
// forced install replaced, once: a second install never overwrites it),
// or forgets the file after an uninstall.
func updateRecord(rec state.HooksRecord, stateDir, key, action string, plan hooks.Plan, hookCmd, slCmd string) error {
	if action == "uninstall" {
		if _, ok := rec.Files[key]; !ok {
			return nil
		}
		delete(rec.Files, key)
	} else {
		fr := rec.Remember(key, hookCmd)
		if plan.StatusLine == "set" || plan.StatusLine == "updated" {
			rec.Remember(key, slCmd)
		}
		if plan.Replaced != "" && fr.UserStatusLine == "" {
			fr.UserStatusLine = plan.Replaced
		}
	}
	if err := rec.Save(stateDir); err != nil {
		return fmt.Errorf("record the installed hooks: %w", err)
	}
	return nil
}

func printPlan(io *iostreams.IOStreams, p hooks.Plan) {
	w := io.Out
	if !p.Changed() {
		fmt.Fprintln(w, "  nothing to change")
	}
	if len(p.Added) > 0 {
		fmt.Fprintf(w, "  added:   %s\n", strings.Join(p.Added, ", "))
	}
	if len(p.Updated) > 0 {
		fmt.Fprintf(w, "  updated: %s\n", strings.Join(p.Updated, ", "))
	}
	if len(p.Removed) > 0 {
		fmt.Fprintf(w, "  removed: %s\n", strings.Join(p.Removed, ", "))
	}
	switch p.StatusLine {
	case "set", "updated", "removed", "restored":
		fmt.Fprintf(w, "  statusLine %s\n", p.StatusLine)
	}
}

// codexExtras handles Codex's trust records (only with --trust) and says
// how to get hooks running.
func codexExtras(opts hooksOptions, t hookTarget, owner hooks.Owner, old, out []byte) error {
	cfgPath := filepath.Join(t.inst.Home(), "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", cfgPath, err)
	}
	var newCfg []byte
	switch {
	case opts.Action == "install" && opts.Trust:
		entries, err := codextrust.CodexTrust(t.path, out, owner)
		if err != nil {
			return err
		}
		if newCfg, err = codextrust.ApplyCodexTrust(cfg, entries); err != nil {
			return exitcode.With(exitcode.Refused, fmt.Errorf("%s: %w", cfgPath, err))
		}
	case opts.Action == "uninstall" && len(cfg) > 0:
		entries, err := codextrust.CodexTrust(t.path, old, owner)
		if err != nil {
			return err
		}
		newCfg = codextrust.RemoveCodexTrust(cfg, entries)
	}
	if newCfg != nil && !bytes.Equal(newCfg, cfg) {
		fmt.Fprintf(opts.IO.Out, "  %s trust records in %s\n", map[string]string{"install": "wrote", "uninstall": "removed"}[opts.Action], cfgPath)
		if !opts.DryRun {
			if err := atomicfile.WriteBytes(cfgPath, newCfg, atomicfile.Options{Perm: 0o600, Backup: ".bak"}); err != nil {
				return fmt.Errorf("write %s: %w", cfgPath, err)
			}
		}
	}
	if !opts.DryRun && opts.StateDir != "" {
		// doctor --fix trusts again only what the user had tether trust.
		if err := state.RecordCodexTrust(opts.StateDir, t.path, opts.Action == "install" && opts.Trust); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "tether: note: could not record the --trust choice: %v\n", err)
		}
	}
	if opts.Action == "install" {
		if !opts.Trust {
			fmt.Fprintln(opts.IO.ErrOut, "tether: note: Codex runs hooks only once trusted: the TUI asks (\"Hooks need review\"); 'codex exec' skips untrusted hooks silently. --trust marks them trusted for you.")
		}
		fmt.Fprintf(opts.IO.ErrOut, "tether: note: Codex versions without hooks.json can report turn ends through notify: add to %s:\n  notify = [%q, \"hook\", \"--harness\", \"codex\"]\n", cfgPath, hot.Sibling(opts.Tether))
	}
	return nil
}

// claudeVersion runs "claude --version"; "" when it cannot.
func claudeVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	if _, ok := claude.ParseVersion(string(out)); !ok {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ownerFor recognises tether's entries in t's file: what the record says
// tether wrote there, and what tether (this binary) writes, under an
// event tether installs for one of agents. An unreadable record counts as
// none.
func ownerFor(stateDir string, t hookTarget, tether string, agents agent.Registry) hooks.Owner {
	rec, _ := state.LoadHooksRecord(stateDir)
	return hooks.Owner{Recorded: rec.Commands(state.HooksRecordKey(t.path)), Current: ownedCommands(tether, t.inst), Events: hooks.InstallableEvents(agents)}
}

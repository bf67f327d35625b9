package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/safeio"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/searchindex"
	"github.com/tether-dev/tether/trim"
)

type doctorOptions struct {
	IO       *iostreams.IOStreams
	Loc      locations.Locations
	Root     identity.Root
	LoadConf func() (config.Config, error)
	// Executable and LookPath locate this binary and the one on PATH.
	Executable func() (string, error)
	LookPath   func(string) (string, error)
	// Version is this tether's; HotVersion runs `tether-hot --version`.
	Version    string
	HotVersion func(path string) (string, error)
	// Catalog, when set, is listed to report unreadable session files.
	Catalog func() (*catalog.Catalog, error)
	// Shell is the calling shell's environment, for the shell checks.
	Shell shellEnv
	// Fix applies the safe fixes of failed or warned checks.
	Fix bool
	// ReinstallHooks installs the hooks of one harness and scope again
	// (--fix, for hooks that run a binary that is gone).
	// trust re-trusts Codex hooks (only for hooks tether installed with
	// --trust).
	ReinstallHooks func(harness, scope string, statusLine, trust bool) error
	// Archive is tether's archive and whether it is enabled (nil: the
	// retention and archive checks are skipped).
	Archive func() (*archive.Store, bool, error)
}

func (a *App) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check tether's installation and the current directory's sessions",
		Description: "Runs every check and prints one line each: ok, warn (works, but worth a look) or\n" +
			"fail (something tether needs is broken), with how to fix it. Exits 1 when any\n" +
			"check fails. --fix applies the safe fixes (rebuilding the completion index,\n" +
			"re-installing hooks that run a tether binary that no longer exists, trusting Codex\n" +
			"hooks again that tether installed with --trust); it never edits shell rc files.\n\n" +
			"Examples:\n" +
			"  tether doctor\n" +
			"  tether doctor --fix",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "fix", Usage: "apply the safe fixes"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return runDoctor(doctorOptions{
				IO: a.IO, Loc: a.Loc, Root: a.Root(), LoadConf: a.Config,
				Executable: os.Executable, LookPath: exec.LookPath, Fix: cmd.Bool("fix"),
				Version: a.Version, HotVersion: hotVersion,
				Catalog: func() (*catalog.Catalog, error) { return a.catalogFor("") },
				Archive: a.archiveStore,
				Shell: shellEnv{
					Getenv: a.Getenv, PPID: os.Getppid(), Now: a.Now(),
					RefreshIndex: func() error { return a.refreshCompletionIndex(ctx) },
					ProbeZsh:     func() (string, error) { return probeZshCompletion(ctx) },
				},
				ReinstallHooks: func(harness, scope string, statusLine, trust bool) error {
					quiet := *a.IO
					quiet.Out = io.Discard
					o := hooksOptions{
						IO: &quiet, Action: "install", Scope: scope, Harness: harness, StatusLine: statusLine, Trust: trust,
						Agents: a.Agents(), RootDir: a.Root().Dir, StateDir: a.Loc.StateDir,
						ClaudeBin: a.Getenv(envClaudeBin),
					}
					if o.ClaudeBin == "" {
						o.ClaudeBin = "claude"
					}
					o.OnPath, o.Tether = tetherBinary(a.Getenv("PATH"))
					return runHooks(ctx, o)
				},
			})
		},
	}
}

type check struct {
	status string // ok, warn, fail
	name   string
	detail string
	fix    func() error // what --fix does about it, if anything
}

func runDoctor(opts doctorOptions) error {
	var checks []check
	add := func(status, name, format string, args ...any) {
		checks = append(checks, check{status, name, fmt.Sprintf(format, args...), nil})
	}

	unsafe := dirsCheck(opts, add)
	if !unsafe {
		configCheck(opts, add)
		if err := probeWritable(opts.Loc.StateDir); err != nil {
			add("fail", "state dir", "%s is not writable: %v — the lifecycle log and session state need it", opts.Loc.StateDir, err)
		} else {
			add("ok", "state dir", "%s", opts.Loc.StateDir)
		}
	}

	self, selfErr := opts.Executable()
	onPath, pathErr := opts.LookPath("tether")
	switch {
	case pathErr != nil:
		add("warn", "on PATH", "tether is not on PATH — add the install directory (e.g. ~/.local/bin) to PATH")
	case selfErr == nil && !sameFile(self, onPath):
		add("warn", "on PATH", "%s is another tether than this one (%s)", onPath, self)
	default:
		add("ok", "on PATH", "%s", onPath)
	}

	if opts.HotVersion != nil {
		hotCheck(opts, add)
	}

	for _, d := range []struct{ name, path string }{{"claude dir", opts.Loc.ClaudeDir}, {"codex dir", opts.Loc.CodexDir}} {
		if st, err := os.Stat(d.path); err == nil && st.IsDir() {
			add("ok", d.name, "%s", d.path)
		} else {
			add("warn", d.name, "%s does not exist (no sessions of that harness yet)", d.path)
		}
	}

	root := opts.Root
	if root.FellBack {
		add("warn", "identity", "%s (fell back: %s)", root.Path, root.Reason)
	} else {
		add("ok", "identity", "%s", root.Path)
	}
	if dirs, err := claude.FindProjectDirs(claude.ProjectsDir(opts.Loc.ClaudeDir), root); err != nil {
		add("fail", "stranded", "cannot read %s: %v", claude.ProjectsDir(opts.Loc.ClaudeDir), err)
	} else {
		n := 0
		for _, d := range dirs {
			if d.Match != claude.MatchExact {
				n += len(d.Sessions)
			}
		}
		if n > 0 {
			add("warn", "stranded", "%d %s for this directory live under other project directories — see 'tether identity'", n, plural(n, "session", "sessions"))
		} else {
			add("ok", "stranded", "no stranded sessions for this directory")
		}
	}

	if unsafe {
		// These read (or write) tether's directories.
		add("warn", "skipped", "the config, state, catalog, search, archive, hooks and shell checks: they read tether's directories")
	}
	if opts.Catalog != nil && !unsafe {
		catalogCheck(add, opts.Catalog)
		searchIndexCheck(add, opts.Loc)
	}

	if !unsafe {
		otherChecks(opts, add, &checks)
	}
	doctorFix(opts, checks)
	return doctorReport(opts, checks)
}

// otherChecks are the checks of the archive, trim's leftovers, the hooks
// and the shell integration.
func otherChecks(opts doctorOptions, add func(status, name, format string, args ...any), checks *[]check) {
	archiveChecks(opts, add)
	trimLeftoversCheck(claude.ProjectsDir(opts.Loc.ClaudeDir), func(status, name string, fix func() error, format string, args ...any) {
		*checks = append(*checks, check{status, name, fmt.Sprintf(format, args...), fix})
	})

	hooksChecks(opts, func(status, name string, fix func() error, format string, args ...any) {
		*checks = append(*checks, check{status, name, fmt.Sprintf(format, args...), fix})
	})

	shellChecks(opts, func(status, name string, fix func() error, format string, args ...any) {
		*checks = append(*checks, check{status, name, fmt.Sprintf(format, args...), fix})
	})

}

// doctorFix applies the safe fixes of the checks that failed or warned
// (--fix).
func doctorFix(opts doctorOptions, checks []check) {
	if opts.Fix {
		for i, c := range checks {
			if c.status == "ok" || c.fix == nil {
				continue
			}
			err := c.fix()
			checks[i].detail += " — " + describeFix(c.name, err)
			if err == nil {
				checks[i].status = "ok"
			}
		}
	}

}

// doctorReport prints one line per check and fails when any failed.
func doctorReport(opts doctorOptions, checks []check) error {
	failed := 0
	for _, c := range checks {
		if c.status == "fail" {
			failed++
		}
		fmt.Fprintf(opts.IO.Out, "%-4s  %-10s %s\n", c.status, c.name, termsafe.Text(c.detail))
	}
	if failed > 0 {
		return exitcode.With(exitcode.Error, fmt.Errorf("doctor: %d %s failed", failed, plural(failed, "check", "checks")))
	}
	return nil
}

// dirsCheck reports each of tether's directories that someone else owns
// or may write to (hot.UnsafeDir), and whether there was one: tether then
// reads and writes none of them.
func dirsCheck(opts doctorOptions, add func(status, name, format string, args ...any)) (unsafe bool) {
	dirs := opts.Loc.OwnDirs()
	configOK := true
	for _, dir := range dirs {
		if err := safeio.CheckDir(dir); err != nil {
			add("fail", "dirs", "%v — tether reads and writes none of its directories until this is fixed (others could plant files it acts on)", err)
			unsafe = true
			configOK = configOK && dir != opts.Loc.ConfigDir
		}
	}
	if configOK {
		// The archive's directory is the config's to say.
		if cfg, err := opts.LoadConf(); err == nil {
			if st, _ := hot.ArchiveStore(cfg, opts.Loc); st != nil {
				if err := safeio.CheckDir(st.Dir); err != nil {
					add("fail", "dirs", "%v — tether reads and writes none of its directories until this is fixed (others could plant files it acts on)", err)
					unsafe = true
				}
			}
		}
	}
	if !unsafe {
		add("ok", "dirs", "tether's directories are yours and private")
	}
	return unsafe
}

// configCheck reports whether the config file loads.
func configCheck(opts doctorOptions, add func(status, name, format string, args ...any)) {
	if cfg, err := opts.LoadConf(); err != nil {
		add("fail", "config", "%v — fix the file or move it away", err)
	} else if cfg.Path == "" {
		add("ok", "config", "no file at %s (defaults in use)", opts.Loc.ConfigFile)
	} else if len(cfg.Unknown) > 0 {
		add("warn", "config", "%s: unknown keys ignored: %v", cfg.Path, cfg.Unknown)
	} else {
		add("ok", "config", "%s", cfg.Path)
	}
}

// catalogCheck lists every session and reports the files the readers
// could not understand (at most three by name).
func catalogCheck(add func(status, name, format string, args ...any), open func() (*catalog.Catalog, error)) {
	c, err := open()
	if err != nil {
		add("fail", "catalog", "%v", err)
		return
	}
	ss, diags, err := c.List(context.Background(), catalog.ListOptions{All: true})
	if err != nil {
		add("fail", "catalog", "%v", err)
		return
	}
	if len(diags) == 0 {
		add("ok", "catalog", "%d %s, every file readable", len(ss), plural(len(ss), "session", "sessions"))
		return
	}
	var names []string
	for i, d := range diags {
		if i == 3 {
			names = append(names, fmt.Sprintf("… %d more", len(diags)-3))
			break
		}
		names = append(names, d.Path+": "+d.Problem)
	}
	add("warn", "catalog", "%d %s, %d unreadable %s (see 'tether sessions --json'): %s", len(ss), plural(len(ss), "session", "sessions"),
		len(diags), plural(len(diags), "file", "files"), strings.Join(names, "; "))
}

// probeWritable creates dir if needed and a file in it, then removes the
// file.
func probeWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	sa, err1 := os.Stat(ra)
	sb, err2 := os.Stat(rb)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// trimLeftoversCheck reports the temporary and lock files killed trims
// left in Claude Code's project directories; --fix removes them (each
// session's under its trim lock, so a running trim keeps its files).
func trimLeftoversCheck(projects string, add func(status, name string, fix func() error, format string, args ...any)) {
	dirs, _ := os.ReadDir(projects)
	var found []string
	var withLeftovers []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(projects, d.Name())
		if l := trim.Leftovers(dir); len(l) > 0 {
			found = append(found, l...)
			withLeftovers = append(withLeftovers, dir)
		}
	}
	if len(found) == 0 {
		add("ok", "trim", nil, "no leftovers of killed trims in %s", projects)
		return
	}
	fix := func() error {
		for _, dir := range withLeftovers {
			if _, err := trim.RemoveLeftovers(dir); err != nil {
				return err
			}
		}
		return nil
	}
	add("warn", "trim", fix, "%d files left by killed trims (e.g. %s) — --fix removes them", len(found), filepath.Base(found[0]))
}

// searchIndexCheck is doctor's line about the search index.
func searchIndexCheck(add func(status, name, format string, args ...any), loc locations.Locations) {
	path := searchIndexPath(loc)
	n, err := searchindex.Size(path)
	switch {
	case err != nil:
		add("warn", "search", "index %s: %v", path, err)
	case n == 0:
		add("ok", "search", "no index yet (the first 'tether sessions search' or 'tether sessions index' builds %s)", path)
	default:
		add("ok", "search", "index %s, %s", path, humanBytes(n))
	}
}

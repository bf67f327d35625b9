package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/picker"
	"github.com/tether-dev/tether/picker/snapshot"
	"github.com/tether-dev/tether/summarize"
)

// exitCancelled is the status of a picker left with Esc or Ctrl-C, as a
// shell reports a command ended by SIGINT.
const exitCancelled = 130

// Test hooks: the picker replaces this process and runs tmux.
var (
	pickExec = func(dir string, argv, env []string) error {
		if err := os.Chdir(dir); err != nil {
			return fmt.Errorf("cd %s: %w", dir, err)
		}
		return syscall.Exec(argv[0], argv, env)
	}
	pickTmux = func(args ...string) error {
		cmd := exec.Command("tmux", args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		return cmd.Run()
	}
)

type pickOptions struct {
	IO     *iostreams.IOStreams
	Picker picker.Options
	// Snapshot is the picker's first-paint cache file.
	Snapshot string
	Environ  []string
	// Logged records a resume in the lifecycle log (metadata only).
	Logged func(s catalog.Session, mode string)
	// Shell is the shell the printed command is quoted for.
	Shell string
	// Started is called once the model has built its first screen and
	// its search text (nil: no call): it puts back the collector
	// pickCommand turned off.
	Started func()
}

func (a *App) pickCommand() *cli.Command {
	return &cli.Command{
		Name:  "pick",
		Usage: "pick a session in a full-screen fuzzy finder and resume it",
		Description: "Lists every Claude Code and Codex session, newest first; typing filters (fuzzy) over\n" +
			"titles, prompts, directories, branches and ids. The list starts at this directory's\n" +
			"sessions when it has any (ctrl+s widens to all); tab cycles the harness; ? lists\n" +
			"every key. Enter resumes the session in its own directory through 'tether run', so\n" +
			"the wrapper's preflight, trimming and fresh-start fallback apply. Esc or Ctrl-C\n" +
			"exits 130. --print prints the command instead (for scripts and the shell key\n" +
			"binding of 'tether init --bind').\n\n" +
			"Examples:\n" +
			"  tether pick\n" +
			"  tether pick --harness codex --since 7d --query 'release notes'\n" +
			"  cmd=$(tether pick --print) && eval \"$cmd\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cwd", Usage: "start scoped to the sessions of `DIR` (default: the current directory)"},
			choice(&cli.StringFlag{Name: "harness", Usage: "start showing only `HARNESS` (claude-code, alias claude, codex or opencode)"}, harnessNames...),
			&cli.StringFlag{Name: "since", Usage: "only sessions active within `DURATION` (e.g. 90m, 24h, 7d)"},
			&cli.StringFlag{Name: "query", Usage: "start with `TEXT` typed"},
			&cli.BoolFlag{Name: "print", Usage: "on Enter, print the resume command on stdout instead of running it"},
			// For scripts/bench.sh: draw the first frame (120x40) from the
			// snapshot to stdout, with no terminal, and exit.
			&cli.BoolFlag{Name: "headless", Hidden: true},
			&cli.StringFlag{Name: "shell", Usage: "quote the printed command for `SHELL` (sh, bash, zsh or fish; default sh)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr(fmt.Errorf("unexpected argument %q (see 'tether pick --help')", cmd.Args().First()))
			}
			// Reading the snapshot, building the first screen and the
			// search text allocate ~35 MB at 10,000 sessions: at the
			// default GOGC the collector ran through all of it (~15 ms of
			// CPU, a third of the first paint, and more once it was
			// restored before the search text). It is off until the model
			// has both, under the soft memory limit a listing uses
			// (listGC), then put back.
			restoreGC := sync.OnceFunc(listGC())
			defer restoreGC()
			opts, err := a.pickOptions(ctx, cmd)
			if err != nil {
				return err
			}
			opts.Started = restoreGC
			if cmd.Bool("headless") {
				return runPickHeadless(opts)
			}
			return runPick(ctx, opts)
		},
	}
}

func (a *App) pickOptions(ctx context.Context, cmd *cli.Command) (pickOptions, error) {
	h, err := parseHarness(cmd.String("harness"))
	if err != nil {
		return pickOptions{}, err
	}
	switch sh := cmd.String("shell"); sh {
	case "", "sh", "bash", "zsh", "fish":
	default:
		return pickOptions{}, usageErr(fmt.Errorf("--shell: %q is not sh, bash, zsh or fish", sh))
	}
	po := picker.Options{Harness: h, Agents: a.Agents(), Query: cmd.String("query"), Now: a.Now, PrintOnly: cmd.Bool("print"),
		InTmux: a.Getenv("TMUX") != "", Home: a.Getenv("HOME")}
	if s := cmd.String("since"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return pickOptions{}, usageErr(fmt.Errorf("--since: %w", err))
		}
		po.Since = d
	}
	if c := cmd.String("cwd"); c != "" {
		po.Root = identity.Resolve(c).Path
	} else if wd, err := os.Getwd(); err == nil {
		po.Root = identity.Resolve(wd).Path
	}
	self, err := os.Executable()
	if err != nil {
		return pickOptions{}, fmt.Errorf("cannot find this binary's path: %w", err)
	}
	po.Self = self
	// Every harness is listed: the harness key cycles over them. The
	// catalog (which loads its caches) is built on first use, in the
	// background refresh, so it does not delay the first paint.
	catalogOnce := sync.OnceValues(func() (*catalog.Catalog, error) { return a.catalogFor("") })
	cfg, err := a.Config()
	if err != nil {
		return pickOptions{}, err
	}
	snap := snapshot.Path(a.Loc.CacheDir)
	po.Sessions, po.Short = snapshot.Load(snap)
	po.Refresh = func() ([]catalog.Session, error) {
		c, err := catalogOnce()
		if err != nil {
			return nil, err
		}
		ss, _, err := c.List(ctx, catalog.ListOptions{All: true})
		if err != nil && len(ss) == 0 {
			return nil, err
		}
		// Stale as list and show say it: the row and the preview must
		// not offer a session whose last resume failed as resumable.
		markStale(ss, a.staleMarks())
		_ = snapshot.Save(snap, ss) // only an optimisation
		if err == nil {
			a.writeCompletionIndex(ss)
		}
		return ss, nil
	}
	spends := a.spendsOnce(ctx)
	po.Show = func(s catalog.Session) (string, error) {
		c, err := catalogOnce()
		if err != nil {
			return "", err
		}
		return a.sessionPreview(ctx, c, s, spends)
	}
	fit := strconv.FormatFloat(cfg.Wrap.FitPercent, 'f', -1, 64) + "%"
	po.TrimReport = func(s catalog.Session) (string, error) {
		return runSelf(ctx, self, "trim", "--fit", fit, "--dry-run", s.ID)
	}
	po.Trim = func(s catalog.Session) (string, error) {
		return runSelf(ctx, self, "trim", "--fit", fit, s.ID)
	}
	return pickOptions{
		IO: a.IO, Picker: po, Snapshot: snap, Environ: os.Environ(), Shell: cmd.String("shell"),
		Logged: func(s catalog.Session, mode string) {
			a.Log().With(s.Harness, s.IdentityRoot).Info(eventlog.Resume, s.ID,
				slog.String("cwd", s.Resume.Dir), slog.String("mode", mode))
		},
	}, nil
}

// runSelf runs another tether command and returns what it printed.
func runSelf(ctx context.Context, self string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, self, args...).CombinedOutput()
	return string(out), err
}

func runPick(ctx context.Context, opts pickOptions) error {
	out, closeOut, err := pickOutput(opts.IO)
	if err != nil {
		return err
	}
	defer closeOut()
	m := picker.New(opts.Picker)
	started(m, opts.Started)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(out), tea.WithEnvironment(opts.Environ))
	final, err := p.Run()
	switch {
	case errors.Is(err, tea.ErrInterrupted), errors.Is(err, context.Canceled):
		return exitcode.Silent{Code: exitCancelled}
	case err != nil:
		// Bubble Tea has restored the terminal (also after a panic).
		return fmt.Errorf("picker: %w", err)
	}
	return pickAct(opts, final.(picker.Model).Result())
}

// runPickHeadless draws the first frame the picker would paint and prints
// it. Without a snapshot it lists the catalog first (and so writes one).
func runPickHeadless(opts pickOptions) error {
	po := opts.Picker
	if po.Sessions == nil {
		ss, err := po.Refresh()
		if err != nil {
			return err
		}
		po.Sessions, po.Short = ss, nil
	}
	po.Refresh = nil
	m := picker.New(po)
	started(m, opts.Started)
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	_, err := fmt.Fprintln(opts.IO.Out, nm.View().Content)
	return err
}

// started calls f (when set) once m has built what it builds in the
// background.
func started(m picker.Model, f func()) {
	if f != nil {
		go func() {
			m.WaitReady()
			f()
		}()
	}
}

// pickOutput is where the picker draws: stdout when it is a terminal, else
// the controlling terminal, so `$(tether pick --print)` captures only the
// command.
func pickOutput(streams *iostreams.IOStreams) (io.Writer, func(), error) {
	if f, ok := streams.Out.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return f, func() {}, nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("the picker needs a terminal: %w", err)
	}
	return tty, func() { tty.Close() }, nil
}

// pickAct does what the picker ended with.
func pickAct(opts pickOptions, r picker.Result) error {
	self := opts.Picker.Self
	s := r.Session
	c := picker.ResumeCommand(self, opts.Picker.Agents.Get(s.Harness), s, r.Kind == picker.Fork)
	switch r.Kind {
	case picker.Cancel:
		return exitcode.Silent{Code: exitCancelled}
	case picker.Print:
		_, err := fmt.Fprintln(opts.IO.Out, c.ShellWith(picker.QuoterFor(opts.Shell)))
		return err
	case picker.Attach:
		target := s.Runtime.TmuxTarget
		if target == "" {
			target = s.Runtime.Tmux
		}
		for _, args := range picker.TmuxAttachArgs(target, opts.Picker.InTmux) {
			if err := pickTmux(args...); err != nil {
				return fmt.Errorf("tmux %s: %w", args[0], err)
			}
		}
		return nil
	}
	if fi, err := os.Stat(c.Dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("session %s belongs to %s, which no longer exists (tether pick --print gives the command)", s.Key(), c.Dir)
	}
	mode := map[picker.Kind]string{picker.Resume: "pick", picker.Fork: "pick:fork", picker.TmuxWindow: "pick:tmux"}[r.Kind]
	if opts.Logged != nil {
		opts.Logged(s, mode)
	}
	if r.Kind == picker.TmuxWindow {
		return pickTmux(picker.TmuxWindowArgs(c, catalog.TmuxName(filepath.Base(c.Dir)))...)
	}
	return pickExec(c.Dir, c.Argv, withPWD(append(append([]string{}, opts.Environ...), c.EnvList()...), c.Dir))
}

// withPWD sets PWD to dir, as a shell's cd does: the inherited PWD names
// the picker's directory, not the session's.
func withPWD(env []string, dir string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PWD=") {
			out = append(out, kv)
		}
	}
	return append(out, "PWD="+dir)
}

// spendsOnce is every session's spend, counted once per picker run by the
// first preview that asks (in the preview's goroutine, never the
// keyboard's): a warm count reads every agent's usage cache, ~0.1 s at
// 2,000 sessions, too much to repeat at each cursor move.
func (a *App) spendsOnce(ctx context.Context) func() map[string]*agent.Spend {
	return sync.OnceValue(func() map[string]*agent.Spend {
		var every []catalog.Session
		for _, h := range harnessNames {
			every = append(every, catalog.Session{Harness: h})
		}
		return a.sessionSpends(ctx, every)
	})
}

// sessionPreview is the picker's preview of s: what `tether sessions show`
// prints, summary and spend included (spends: nil leaves the spend out).
func (a *App) sessionPreview(ctx context.Context, c *catalog.Catalog, s catalog.Session, spends func() map[string]*agent.Spend) (string, error) {
	full, err := c.Get(ctx, s)
	if err != nil {
		return "", err
	}
	one := []catalog.Session{full}
	markStale(one, a.staleMarks())
	full = one[0]
	summarize.Attach(a.Loc.DataDir, &full)
	if spends != nil {
		full.Spend = spends()[spendKey(full.Harness, full.Source, full.ID)]
	}
	var b bytes.Buffer
	printSession(&b, full, a.Now(), "")
	return b.String(), nil
}

// Package app is tether's command line: the command tree, the shared
// dependencies every command gets, and the mapping from errors to exit
// statuses. Each command has an options struct and a runX function that
// takes it, so commands are tested without a process or a terminal.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/config/configfile"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/hot"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/wrap"
)

// App holds what every command needs. Fields are set by New (or by tests);
// the lazily computed ones are reached through methods.
type App struct {
	IO      *iostreams.IOStreams
	Getenv  func(string) string
	Now     func() time.Time
	Version string
	Loc     locations.Locations

	cfgOnce sync.Once
	cfg     config.Config
	cfgErr  error

	rootOnce sync.Once
	root     identity.Root

	logOnce sync.Once
	log     *eventlog.Log

	unsafeOnce sync.Once
	unsafeErr  error

	// exec runs wrapped programs; nil means wrap.Exec. Tests replace it.
	exec wrap.ExecFunc

	// indexSource lists the sessions for the completion index; nil means
	// the catalog. Tests replace it.
	indexSource func(context.Context) ([]shellinit.IndexEntry, error)
}

// New returns an App for this process.
func New(version string) *App {
	return &App{
		IO:      iostreams.System(),
		Getenv:  os.Getenv,
		Now:     time.Now,
		Version: version,
		Loc:     locations.FromEnv(os.Getenv),
	}
}

// Config returns the configuration file's settings, loaded once.
func (a *App) Config() (config.Config, error) {
	a.cfgOnce.Do(func() { a.cfg, a.cfgErr = configfile.Load(a.Loc.ConfigFile) })
	return a.cfg, a.cfgErr
}

// Unsafe is the first of tether's directories that is not private to the
// user (hot.UnsafeDir), checked once; nil when none.
func (a *App) Unsafe() error {
	a.unsafeOnce.Do(func() { a.unsafeErr = hot.UnsafeDir(a.Loc) })
	return a.unsafeErr
}

// refuseUnsafe is Unsafe as a command's error: nothing is read from or
// written to such a directory, and doctor says why.
func (a *App) refuseUnsafe() error {
	err := a.Unsafe()
	if err == nil {
		return nil
	}
	return exitcode.With(exitcode.Refused, fmt.Errorf("%w; tether uses none of its directories until that is fixed (see 'tether doctor')", err))
}

// Windows is the one context-window lookup every command uses: the
// window the statusLine last reported per model, then [hooks.windows],
// then the built-in table. A config that does not load gives no table.
func (a *App) Windows() agent.Windows {
	cfg, _ := a.Config()
	return hot.WindowsOf(cfg, a.Loc)
}

// Root returns the identity root of this process tree, computed once.
// An unusable TETHER_IDENTITY_ROOT is logged once, here, after the root
// is known (Log itself needs the root).
func (a *App) Root() identity.Root {
	first := false
	a.rootOnce.Do(func() { a.root, first = identity.Pinned(a.Getenv), true })
	if first && a.root.IgnoredPin != "" {
		a.Log().Warn(eventlog.IdentityPinIgnored, "", slog.String("reason", a.root.IgnoredPin), slog.String("root", a.root.Path))
	}
	return a.root
}

// Log returns the lifecycle log. It never fails: with an unreadable config
// it uses the defaults, and a log that cannot be written drops records.
func (a *App) Log() *eventlog.Log {
	// The root before the log's Once: its first resolution may log an
	// ignored pin, which opens the log (inside the Once: a deadlock).
	root := a.Root()
	a.logOnce.Do(func() {
		if a.Unsafe() != nil {
			// Nothing written to a directory others can write.
			a.log = eventlog.Open(eventlog.Options{})
			return
		}
		cfg, _ := a.Config()
		a.log = hot.OpenLog(cfg, a.Getenv, a.Loc, root)
	})
	return a.log
}

// Main runs tether with args (os.Args) and returns the process exit status.
func Main(version string, args []string) int {
	ctx, stop := signalContext()
	defer stop()
	if path := os.Getenv("TETHER_CPUPROFILE"); path != "" {
		// For profiling a whole command: go tool pprof tether PATH.
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			} else {
				f.Close()
			}
		}
	}
	code := New(version).Run(ctx, multiCall(args))
	if os.Getenv("TETHER_DEBUG_IO") == "1" {
		// For scripts/bench.sh: what this process read, page cache
		// included (rchar), as the kernel counts it.
		if b, err := os.ReadFile("/proc/self/io"); err == nil {
			fmt.Fprintf(os.Stderr, "tether: io %s\n", strings.Join(strings.Fields(string(b)), " "))
		}
	}
	return code
}

// Run executes one command line and prints its error, once, as
// "tether: <message>".
func (a *App) Run(ctx context.Context, args []string) int {
	var err error
	if refusesUnsafe(args) {
		err = a.refuseUnsafe()
	}
	if err == nil {
		err = a.Command().Run(ctx, args)
	}
	if err != nil {
		if msg := err.Error(); msg != "" {
			// Messages quote titles, paths and ids: no raw control
			// reaches the terminal.
			fmt.Fprintf(a.IO.ErrOut, "tether: %s\n", termsafe.Text(msg))
		}
	}
	return exitcode.Of(err)
}

// quietOnUnsafe are the commands that read and write none of tether's
// directories (help, init, identity), report them (doctor), or are hot
// paths, which check them themselves and fail open.
var quietOnUnsafe = map[string]bool{
	"": true, "help": true, "-h": true, "--help": true, "-v": true, "--version": true,
	"doctor": true, "init": true, "identity": true,
	"hook": true, "statusline": true, "prompt": true, "complete": true,
}

// refusesUnsafe reports whether the command line args is refused while
// one of tether's directories is unsafe (App.Unsafe).
func refusesUnsafe(args []string) bool {
	cmd := ""
	if len(args) > 1 {
		cmd = args[1]
	}
	return !quietOnUnsafe[cmd]
}

// Command builds the command tree.
func (a *App) Command() *cli.Command {
	root := &cli.Command{
		Name:    "tether",
		Usage:   "keep Claude Code and Codex sessions findable, resumable and healthy",
		Version: a.Version,
		Description: "tether keys every agent session on one canonical spelling of the directory it\n" +
			"belongs to (the identity root), logs its lifecycle, and helps find and resume it.\n\n" +
			"Start with 'tether identity' to see how tether sees the current directory, and\n" +
			"'tether doctor' to check the installation. Exit statuses: 0 ok, 1 error, 2 usage,\n" +
			"3 not found, 4 refused.",
		Reader:    a.IO.In,
		Writer:    a.IO.Out,
		ErrWriter: a.IO.ErrOut,
		Commands: []*cli.Command{
			a.identityCommand(),
			a.logCommand(),
			a.doctorCommand(),
			a.runCommand(),
			a.sessionsCommand(),
			a.pickCommand(),
			a.trimCommand(),
			a.hookCommand(),
			a.hooksCommand(),
			a.statuslineCommand(),
			a.initCommand(),
			a.promptCommand(),
			a.completeCommand(),
			a.archiveCommand(),
			helpCommand(),
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return unknownCommand(cmd, cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
	}
	setErrorHandling(root)
	addExamples(root, root.Name)
	return root
}

// setErrorHandling makes every command report usage errors the same way:
// one line, exit status 2, no help dump.
func setErrorHandling(cmd *cli.Command) {
	cmd.OnUsageError = func(_ context.Context, c *cli.Command, err error, _ bool) error {
		msg := strings.TrimSpace(err.Error())
		if s := flagSuggestion(c, err); s != "" {
			msg += didYouMean(s)
		}
		return usageErr(fmt.Errorf("%s (see '%s --help')", msg, c.FullName()))
	}
	if cmd.Action == nil && len(cmd.Commands) > 0 {
		// A group: its help, or a suggestion for a mistyped subcommand.
		cmd.Action = func(_ context.Context, c *cli.Command) error {
			if c.Args().Present() {
				return unknownCommand(c, c.Args().First())
			}
			return cli.ShowSubcommandHelp(c)
		}
	}
	cmd.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	for _, sub := range cmd.Commands {
		setErrorHandling(sub)
	}
}

func usageErr(err error) error { return exitcode.With(exitcode.Usage, err) }

// DefaultVersion is the module version from build info, for builds made
// without -ldflags.
func DefaultVersion() string { return hot.DefaultVersion() }

// notFound marks errors that exit with status 3.
func notFound(err error) error { return exitcode.With(exitcode.NotFound, err) }

// hotDeps hands the hot paths (internal/hot) this App's dependencies.
func (a *App) hotDeps() hot.Deps {
	return hot.Deps{IO: a.IO, Getenv: a.Getenv, Now: a.Now, Loc: a.Loc, Config: a.Config, Root: a.Root, Log: a.Log, Windows: a.Windows,
		Unsafe: a.Unsafe}
}

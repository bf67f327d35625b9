package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/suggest"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/shellinit/compindex"
	"github.com/tether-dev/tether/wrap"
)

// App is the command tree over the one dependency container, hot.Deps,
// which tether-hot uses too: IO, the environment, the clock, the
// locations and the lazily loaded config, identity root, lifecycle log
// and context windows. Fields are set by New (or by tests).
type App struct {
	*hot.Deps
	Version string

	// exec runs wrapped programs; nil means wrap.Exec. Tests replace it.
	exec wrap.ExecFunc

	// indexSource lists the sessions for the completion index; nil means
	// the catalog. Tests replace it.
	indexSource func(context.Context) ([]compindex.Entry, error)
}

// New returns an App for this process.
func New(version string) *App {
	return &App{Deps: hot.New(), Version: version}
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
			a.usageCommand(),
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
			msg += suggest.DidYouMean(s)
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

// notFound marks errors that exit with status 3.
func notFound(err error) error { return exitcode.With(exitcode.NotFound, err) }

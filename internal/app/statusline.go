package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/agent"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
)

type statuslineOptions struct {
	IO       *iostreams.IOStreams
	StateDir string
	Getenv   func(string) string
	Now      func() time.Time
	Log      *eventlog.Log
	Windows  agent.Windows
	// Remember keeps the window the statusLine reported for a model.
	Remember func(model string, window int64) error
}

func (a *App) statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:  "statusline",
		Usage: "Claude Code statusLine command: model and context usage in one line",
		Description: "Set by 'tether hooks install --statusline'. Reads the statusLine JSON Claude Code\n" +
			"sends on stdin, stores the reported context window and usage in the session's\n" +
			"state (so hooks and the prompt segment agree), and prints one line: model, a bar\n" +
			"and the context in use, green below 50%, yellow below 80%, red above. NO_COLOR\n" +
			"turns colour off.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usageErr(fmt.Errorf("statusline takes no arguments, got %q", cmd.Args().First()))
			}
			return runStatusline(statuslineOptions{IO: a.IO, StateDir: a.Loc.StateDir, Getenv: a.Getenv, Now: a.Now, Log: a.Log(),
				Windows: a.Windows(), Remember: agent.WindowFile{Path: a.Loc.WindowsFile()}.Remember})
		},
	}
}

// runStatusline never fails: a statusLine that errors shows nothing
// useful, so problems go to the lifecycle log and a plain line is printed.
func runStatusline(opts statuslineOptions) error {
	data, err := hooks.ReadPayload(opts.IO.In, hooks.ReadLimits{Total: time.Second, Idle: 100 * time.Millisecond, Max: 1 << 20})
	in, perr := hooks.ParseStatusLine(data)
	if perr != nil {
		if err == nil {
			err = perr
		}
		opts.Log.Warn(hooks.EvHookError, "", slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
		fmt.Fprintln(opts.IO.Out, "tether")
		return nil
	}
	if in.Window > 0 && opts.Remember != nil {
		if err := opts.Remember(in.ModelID, in.Window); err != nil {
			opts.Log.Warn(hooks.EvHookError, in.SessionID, slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
		}
	}
	st, err := hooks.RecordStatusLine(opts.StateDir, in, opts.Windows, opts.Getenv, opts.Now())
	if err != nil {
		opts.Log.Warn(hooks.EvHookError, in.SessionID, slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
	}
	fmt.Fprintln(opts.IO.Out, hooks.RenderStatusLine(in, st, !opts.IO.NoColor))
	return nil
}

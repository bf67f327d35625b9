package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/state"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/iostreams"
)

type statuslineOptions struct {
	IO       *iostreams.IOStreams
	StateDir string
	// Chain is the user's statusLine command to run first ("" for none),
	// ChainTimeout its bound.
	Chain        string
	ChainTimeout time.Duration
	Getenv       func(string) string
	Now          func() time.Time
	Log          *eventlog.Log
	Config       config.Config
	Windows      agent.Windows
	// Remember keeps the window the statusLine reported for a model.
	Remember func(model string, window int64) error
}

// promptThresholds are the colours' thresholds of [prompt], which the
// statusLine shares so both show a session in the same colour.
func promptThresholds(p config.Prompt) gauge.Thresholds {
	return gauge.Thresholds{Warn: p.Warn, Crit: p.Crit}
}

func (a *App) statuslineCommand() *cli.Command {
	return &cli.Command{
		Name:  "statusline",
		Usage: "Claude Code statusLine command: model and context usage in one line",
		Description: "Set by 'tether hooks install --statusline'. Reads the statusLine JSON Claude Code\n" +
			"sends on stdin, stores the reported context window and usage in the session's\n" +
			"state (so hooks and the prompt segment agree), and prints one line of segments:\n" +
			"by default the model and a gauge of the context in use, coloured like the prompt\n" +
			"segment ([prompt] warn and crit: yellow from 60%, red from 80%). [statusline]\n" +
			"segments in the config picks and orders them: model, context, branch (read from\n" +
			".git/HEAD of the session's directory), cost (the payload's total_cost_usd).\n" +
			"NO_COLOR turns colour off.\n\n" +
			"Examples:\n" +
			"  # in ~/.config/tether/config.toml\n" +
			"  [statusline]\n" +
			"  segments = [\"model\", \"context\", \"branch\", \"cost\"]\n" +
			"  # try it on a recorded payload\n" +
			"  tether statusline < statusline-stdin.json",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() > 0 {
				return usageErr(fmt.Errorf("statusline takes no arguments, got %q", cmd.Args().First()))
			}
			// An unreadable config still draws a line, with the defaults.
			cfg, _ := a.Config()
			return runStatusline(ctx, statuslineOptions{IO: a.IO, StateDir: a.Loc.StateDir, Getenv: a.Getenv, Now: a.Now, Log: a.Log(), Config: cfg,
				Chain:        chainCommand(cfg.StatusLine, a.Loc.StateDir, a.Loc.ClaudeDir, a.Getenv),
				ChainTimeout: time.Duration(cfg.StatusLine.TimeoutMS) * time.Millisecond,
				Windows:      a.Windows(), Remember: state.WindowFile{Path: a.Loc.WindowsFile()}.Remember})
		},
	}
}

// runStatusline never fails: a statusLine that errors shows nothing
// useful, so problems go to the lifecycle log and a plain line is printed.
func runStatusline(ctx context.Context, opts statuslineOptions) error {
	data, err := hooks.ReadPayload(opts.IO.In, hooks.ReadLimits{Total: time.Second, Idle: 100 * time.Millisecond, Max: 1 << 20})
	in, perr := hooks.ParseStatusLine(data)
	if perr != nil {
		if err == nil {
			err = perr
		}
		opts.Log.Warn(eventlog.HookError, "", slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
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
		opts.Log.Warn(eventlog.HookError, in.SessionID, slog.String("hook_event", "statusLine"), slog.String("error", err.Error()))
	}
	line := hooks.RenderStatusLine(in, st, hooks.StatusOptions{
		Color: !opts.IO.NoColor, Thresholds: promptThresholds(opts.Config.Prompt), Segments: opts.Config.StatusLine.Segments,
	})
	if opts.Chain != "" {
		// The user's own statusLine prints what it likes (colours
		// included): it is their command, run as Claude Code would.
		chained, err := runChained(ctx, opts.Chain, data, opts.ChainTimeout)
		if err != nil {
			opts.Log.Warn(eventlog.HookError, in.SessionID, slog.String("hook_event", "statusLine"), slog.String("error", "chained statusLine: "+err.Error()))
		}
		line = besides(chained, line)
	}
	fmt.Fprintln(opts.IO.Out, line)
	return nil
}

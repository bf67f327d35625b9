package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// The statusLine itself lives in cmd/internal/hot, shared with tether-hot.
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
			return hot.Statusline(ctx, a.Deps)
		},
	}
}

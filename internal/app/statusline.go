package app

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/hot"
)

type statuslineOptions = hot.StatuslineOptions

func runStatusline(opts statuslineOptions) error { return hot.RunStatusline(opts) }

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
			return hot.Statusline(a.hotDeps())
		},
	}
}

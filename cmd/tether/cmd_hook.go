package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// The hook itself lives in cmd/internal/hot, shared with tether-hot.
func (a *App) hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "the command Claude Code and Codex hooks call (reads the event payload on stdin)",
		ArgsUsage: "[EVENT] [--harness claude-code|codex|opencode] [PAYLOAD-JSON...]",
		Hidden:    true,
		Description: "Installed by 'tether hooks install'; not meant to be run by hand. Reads one hook\n" +
			"payload from stdin (or JSON arguments, as Codex's notify and tether's OpenCode plugin\n" +
			"pass them: several are events in order), records the\n" +
			"event in the lifecycle log and the session's state, prints nothing and always\n" +
			"exits 0: its own errors go to the lifecycle log, never to the agent.",
		// Parsed by hand: a usage error must not become exit status 2,
		// which Claude Code treats as "block".
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			hot.Hook(ctx, a.Deps, cmd.Args().Slice(), func(args []string) (int, error) { return startBackground(args) })
			return nil
		},
	}
}

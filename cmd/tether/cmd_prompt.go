package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/config"
)

func (a *App) promptCommand() *cli.Command {
	def := hot.DefaultPromptFlags()
	return &cli.Command{
		Name:   "prompt",
		Usage:  "print the prompt segment: context use of this directory's latest agent session",
		Hidden: true,
		Description: "Prints e.g. 'ctx 62%' for the latest Claude Code or Codex session of the current\n" +
			"identity root, from one small state file the hooks keep; nothing when there is none,\n" +
			"on any error, or when the answer takes longer than --timeout. The format, and the\n" +
			"percentages at which it turns yellow and red, come from [prompt] in the config.\n\n" +
			"Placeholders: {pct} {bar} {tokens} {window} {model} {harness}.\n" +
			"--shell and --stamp-id are for the scripts of 'tether init'.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "the segment's text, e.g. 'ctx {pct}% {bar}' (default from config: " + config.DefaultPrompt().Format + ")"},
			choice(&cli.StringFlag{Name: "color", Value: def.Color, Usage: "auto, always or never (auto: on for --shell, else when stdout is a terminal; NO_COLOR turns it off)"}, "auto", "always", "never"),
			choice(&cli.StringFlag{Name: "shell", Value: def.Shell, Usage: "bash, zsh, fish or plain: how colour escapes are wrapped, and the init scripts' output"}, "bash", "zsh", "fish", "plain"),
			&cli.StringFlag{Name: "stamp-id", Usage: "the calling shell's pid, for its cache stamp"},
			&cli.DurationFlag{Name: "timeout", Value: def.Timeout, Usage: "print nothing rather than take longer than this"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			return hot.Prompt(a.Deps, hot.PromptFlags{
				Format: cmd.String("format"), Color: cmd.String("color"), Shell: cmd.String("shell"),
				StampID: cmd.String("stamp-id"), Timeout: cmd.Duration("timeout"),
			})
		},
	}
}

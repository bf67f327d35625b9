package main

import (
	"context"
	"strings"

	"github.com/urfave/cli/v3"
)

// examples are shown at the end of each command's --help, keyed by the
// command's full name. Commands whose Description already ends in an
// Examples section keep theirs.
var examples = map[string][]string{
	"tether": {
		"tether sessions                  # every Claude Code and Codex session, newest first",
		"tether sessions resume 3f2a      # continue one where it belongs",
		"tether doctor                    # check the installation",
		`eval "$(tether init bash)"       # wrappers, prompt segment, completion`,
	},
	"tether usage": {
		"tether usage                     # tokens and cost per day, every agent",
		"tether usage monthly --breakdown # per month, a line per model",
		"tether usage session --harness codex --since 2026-03-01",
		"tether usage --json --timezone UTC",
	},
	"tether help": {
		"tether help sessions show        # the same as tether sessions show --help",
	},
	"tether identity": {
		"tether identity",
		"tether identity ~/src/project --json",
	},
	"tether run": {
		"tether run claude --resume 3f2a1b4c-0000-4000-8000-000000000001",
		`tether run claude -p "summarise the diff" --output-format json`,
		"tether run codex resume --last",
	},
	"tether sessions": {
		"tether sessions --since 7d",
		"tether sessions --cwd . --state resumable",
		"tether sessions --harness codex --json | jq '.sessions[].id'",
		"tether sessions --columns id,dir,cost,title",
	},
	"tether sessions list": {
		"tether sessions list --limit 20",
		"tether sessions list --repo org/widget --no-content",
	},
	"tether sessions show": {
		"tether sessions show 3f2a",
		"tether sessions show codex:0199 --json",
	},
	"tether sessions resume": {
		"tether sessions resume 3f2a",
		"tether sessions resume 3f2a --print     # the command, without running it",
		"tether sessions resume 3f2a --tmux",
	},
	"tether sessions search": {
		"tether sessions search login bug",
		"tether sessions search parser --all-text --json",
	},
	"tether sessions schema": {
		"tether sessions schema list",
		"tether sessions schema show > show.schema.json",
	},
	"tether sessions cache": {
		"tether sessions cache clear",
	},
	"tether sessions cache clear": {
		"tether sessions cache clear",
	},
	"tether trim": {
		"tether trim 3f2a --dry-run",
		"tether trim 3f2a --fit 60%",
		"tether trim 3f2a --restore",
	},
	"tether hooks": {
		"tether hooks install --statusline",
		"tether hooks install --harness codex --trust",
		"tether hooks status",
	},
	"tether hooks install": {
		"tether hooks install --dry-run",
		"tether hooks install --scope project",
		"tether hooks install --harness codex --trust",
	},
	"tether hooks uninstall": {
		"tether hooks uninstall",
		"tether hooks uninstall --harness codex",
	},
	"tether hooks status": {
		"tether hooks status",
	},
	"tether init": {
		`eval "$(tether init bash)"       # in ~/.bashrc`,
		`eval "$(tether init zsh)"        # in ~/.zshrc`,
		"tether init fish | source        # in ~/.config/fish/config.fish",
		`eval "$(tether init bash --no-wrap --cmd tether)"`,
	},
	"tether log": nil, // has its own
}

// addExamples appends the Examples section to the --help of cmd and every
// command under it.
func addExamples(cmd *cli.Command, path string) {
	if ex := examples[path]; len(ex) > 0 && !strings.Contains(cmd.Description, "Examples:\n") {
		var b strings.Builder
		b.WriteString(strings.TrimRight(cmd.Description, "\n"))
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Examples:\n")
		for _, e := range ex {
			b.WriteString("  " + e + "\n")
		}
		cmd.Description = strings.TrimRight(b.String(), "\n")
	}
	for _, sub := range cmd.Commands {
		addExamples(sub, path+" "+sub.Name)
	}
}

// helpCommand replaces urfave/cli's own 'help', which shows the help of
// its first argument only ('tether help sessions show' printed sessions'):
// this one walks every argument down the tree and shows the last
// command's help, the same text as 'tether A B --help'.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:            "help",
		Aliases:         []string{"h"},
		Usage:           "show a list of commands or the help of one ('tether help sessions show')",
		ArgsUsage:       "[COMMAND...]",
		HideHelp:        true,
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			target := cmd.Root()
			for _, name := range cmd.Args().Slice() {
				sub := target.Command(name)
				if sub == nil || sub.Name == "help" {
					return unknownCommand(target, name)
				}
				target = sub
			}
			return showHelp(ctx, target)
		},
	}
}

// showHelp prints cmd's --help.
func showHelp(ctx context.Context, cmd *cli.Command) error {
	lineage := cmd.Lineage()
	if len(lineage) < 2 {
		return cli.ShowRootCommandHelp(cmd)
	}
	return cli.ShowCommandHelp(ctx, lineage[1], cmd.Name)
}

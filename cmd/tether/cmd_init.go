package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/shellinit"
)

type initOptions struct {
	Out   io.Writer
	Shell string
	// Bin is the command the script runs: --cmd, else this binary's path.
	Bin                      string
	NoWrap, NoPrompt, NoComp bool
	// Bind is the picker key (--bind), "" for none.
	Bind string
}

func (a *App) initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "print the shell integration: claude/codex wrappers, a context prompt segment, completion",
		ArgsUsage: "bash|zsh|fish",
		Description: "Add one line to your shell's rc file:\n\n" +
			"  bash  (~/.bashrc)                  eval \"$(tether init bash)\"\n" +
			"  zsh   (~/.zshrc, after compinit)   eval \"$(tether init zsh)\"\n" +
			"  fish  (~/.config/fish/config.fish) tether init fish | source\n\n" +
			"It defines claude and codex as functions running 'tether run', keeps the context use\n" +
			"of the directory's latest session in TETHER_PROMPT (bash: $(__tether_prompt), zsh:\n" +
			"${TETHER_PROMPT} with prompt_subst, fish: tether_prompt), and completes tether's\n" +
			"commands and session ids (tether sessions show|resume, tether trim, claude --resume,\n" +
			"codex resume). The script runs this binary by its absolute path; --cmd NAME runs\n" +
			"NAME instead (looked up on PATH each time, e.g. --cmd tether).\n\n" +
			"--bind KEY (off by default) binds KEY to the session picker: it opens 'tether pick'\n" +
			"and, on Enter, runs the chosen resume command in this shell as if typed (so it is\n" +
			"in history). Example: eval \"$(tether init bash --bind ctrl-g)\"",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-wrap", Usage: "do not define the claude and codex wrapper functions"},
			&cli.BoolFlag{Name: "no-prompt", Usage: "do not set up the prompt segment"},
			&cli.BoolFlag{Name: "no-completion", Usage: "do not set up completion"},
			&cli.StringFlag{Name: "bind", Usage: "bind `KEY` (ctrl-LETTER or alt-LETTER, e.g. ctrl-g) to open 'tether pick' and run the chosen resume in this shell"},
			&cli.StringFlag{Name: "cmd", Usage: "the tether command the script runs (default: the absolute path of tether-hot next to this binary, else of this binary)"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.NArg() != 1 {
				return usageErr(fmt.Errorf("init needs one shell: bash, zsh or fish"))
			}
			bin := cmd.String("cmd")
			if bin == "" {
				self, err := os.Executable()
				if err != nil {
					return fmt.Errorf("cannot find this binary's path (use --cmd tether): %w", err)
				}
				// The scripts run the hot binary: prompt, completion and
				// the wrappers start several times faster.
				bin = hot.Sibling(self)
			}
			return runInit(initOptions{
				Out: a.IO.Out, Shell: cmd.Args().First(), Bin: bin,
				NoWrap: cmd.Bool("no-wrap"), NoPrompt: cmd.Bool("no-prompt"), NoComp: cmd.Bool("no-completion"),
				Bind: cmd.String("bind"),
			})
		},
	}
}

func runInit(opts initOptions) error {
	sh, err := shellinit.ByName(opts.Shell)
	if err != nil {
		return usageErr(err)
	}
	script, err := shellinit.Render(sh, shellinit.Options{
		Bin: opts.Bin, Wrap: !opts.NoWrap, Prompt: !opts.NoPrompt, Completion: !opts.NoComp, Bind: opts.Bind,
	})
	if err != nil {
		return usageErr(err)
	}
	_, err = io.WriteString(opts.Out, script)
	return err
}

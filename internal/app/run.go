package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/wrap"
)

// shimNames are the names under which the tether binary acts as the
// wrapper (a symlink claude -> tether in a shims directory).
var shimNames = map[string]wrap.Harness{"claude": wrap.Claude, "codex": wrap.Codex}

// multiCall rewrites the arguments of a tether invoked as claude or codex
// into "tether run <name> …".
func multiCall(args []string) []string {
	if len(args) == 0 {
		return args
	}
	if _, ok := shimNames[filepath.Base(args[0])]; ok {
		return append([]string{"tether", "run", filepath.Base(args[0])}, args[1:]...)
	}
	return args
}

type runOptions struct {
	Harness wrap.Harness
	Args    []string
}

func (a *App) runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the real claude or codex with the identity root pinned and resume failures handled",
		ArgsUsage: "claude|codex [ARGS...]",
		Description: "Everything after the program name is passed through untouched, as are the terminal,\n" +
			"signals and the exit status. The identity root of the current directory is exported\n" +
			"as TETHER_IDENTITY_ROOT and the program starts in it. When a resume by id cannot work\n" +
			"(the session is missing, empty or corrupt, or the resume fails with prompt too long)\n" +
			"tether says so on stderr and starts one fresh session instead.\n\n" +
			"Invoked as 'claude' or 'codex' (a symlink to tether) it behaves as 'tether run <name>'.\n" +
			"The real binary is the first on PATH that is not tether itself, or $TETHER_CLAUDE_BIN /\n" +
			"$TETHER_CODEX_BIN.",
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) == 0 {
				return usageErr(fmt.Errorf("run needs a program: claude or codex"))
			}
			h, ok := shimNames[args[0]]
			if !ok {
				return usageErr(fmt.Errorf("run wraps claude or codex, not %q", args[0]))
			}
			return a.runWrap(runOptions{Harness: h, Args: args[1:]})
		},
	}
}

func (a *App) runWrap(opts runOptions) error {
	self, _ := os.Executable()
	bin, err := wrap.FindBinary(string(opts.Harness), a.Getenv, self, nil)
	if err != nil {
		return notFound(err)
	}
	code, err := wrap.Run(wrap.Options{
		Harness:     opts.Harness,
		Bin:         bin,
		Args:        opts.Args,
		Root:        a.Root(),
		Env:         os.Environ(),
		ClaudeDir:   a.Loc.ClaudeDir,
		CodexDir:    a.Loc.CodexDir,
		Interactive: a.IO.StdinTTY,
		Log:         a.Log(),
		Stderr:      a.IO.ErrOut,
		Exec:        a.exec,
	})
	if err != nil {
		return err
	}
	if code != 0 {
		// The program has said what went wrong; leave with its status.
		return exitcode.Silent{Code: code}
	}
	return nil
}

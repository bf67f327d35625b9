package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	Harness    wrap.Harness
	Args       []string
	SelfReport bool
}

// parseRunArgs splits "[tether flags] claude|codex [args…]". Flags are only
// recognised before the program name; everything after it belongs to the
// program.
func parseRunArgs(args []string) (runOptions, error) {
	var opts runOptions
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "--self-report":
			opts.SelfReport = true
		default:
			return opts, fmt.Errorf("unknown run flag %q (tether's own flags go before the program name; see 'tether run --help')", args[0])
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return opts, fmt.Errorf("run needs a program: claude or codex")
	}
	h, ok := shimNames[args[0]]
	if !ok {
		return opts, fmt.Errorf("run wraps claude or codex, not %q", args[0])
	}
	opts.Harness, opts.Args = h, args[1:]
	return opts, nil
}

func (a *App) runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the real claude or codex with the identity root pinned and resume failures handled",
		ArgsUsage: "[--self-report] claude|codex [ARGS...]",
		Description: "Everything after the program name is passed through untouched, as are the terminal,\n" +
			"signals and the exit status. The identity root of the current directory is exported\n" +
			"as TETHER_IDENTITY_ROOT and the program starts in it. When a resume by id cannot work\n" +
			"(the session is missing, empty or corrupt, or the resume fails with prompt too long)\n" +
			"tether says so on stderr and starts one fresh session instead.\n\n" +
			"Invoked as 'claude' or 'codex' (a symlink to tether) it behaves as 'tether run <name>'.\n" +
			"The real binary is the first on PATH that is not tether itself, or $TETHER_CLAUDE_BIN /\n" +
			"$TETHER_CODEX_BIN.\n\n" +
			"--self-report (before the program name) asks Claude, through --append-system-prompt,\n" +
			"to end each reply with its own estimate of context use, [ctx: ~NN%], which the Stop\n" +
			"hook logs next to the real token count.",
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := parseRunArgs(cmd.Args().Slice())
			if err != nil {
				return usageErr(err)
			}
			return a.runWrap(opts)
		},
	}
}

func (a *App) runWrap(opts runOptions) error {
	self, _ := os.Executable()
	bin, err := wrap.FindBinary(string(opts.Harness), a.Getenv, self, []string{a.Loc.ShimsDir()})
	if err != nil {
		return notFound(err)
	}
	args := opts.Args
	if opts.SelfReport {
		if opts.Harness != wrap.Claude {
			return usageErr(fmt.Errorf("--self-report needs claude: codex has no way to append to the system prompt"))
		}
		args = wrap.AppendSystemPrompt(args, wrap.SelfReportInstruction)
	}
	code, err := wrap.Run(wrap.Options{
		Harness:     opts.Harness,
		Bin:         bin,
		Args:        args,
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

package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/trim"
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
	Force      bool
	Handoff    bool
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
		case "--force":
			opts.Force = true
		case "--handoff":
			opts.Handoff = true
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
		ArgsUsage: "[--self-report] [--force] [--handoff] claude|codex [ARGS...]",
		Description: "Everything after the program name is passed through untouched, as are the terminal,\n" +
			"signals and the exit status. The identity root of the current directory is exported\n" +
			"as TETHER_IDENTITY_ROOT and the program starts in it. When a resume by id cannot work\n" +
			"(the session is missing, empty or corrupt, or the resume fails with prompt too long)\n" +
			"tether says so on stderr and starts one fresh session instead; a Claude session the\n" +
			"API refuses as too long is first trimmed to fit (backup kept) and resumed once more.\n" +
			"With -p --output-format json, stdout carries only the document of the attempt that\n" +
			"counts.\n\n" +
			"Invoked as 'claude' or 'codex' (a symlink to tether) it behaves as 'tether run <name>'.\n" +
			"The real binary is the first on PATH that is not tether itself, or $TETHER_CLAUDE_BIN /\n" +
			"$TETHER_CODEX_BIN.\n\n" +
			"--self-report (before the program name) asks Claude, through --append-system-prompt,\n" +
			"to end each reply with its own estimate of context use, [ctx: ~NN%], which the Stop\n" +
			"hook logs next to the real token count.\n\n" +
			"Before resuming a Claude session by id, tether refuses one that another process is\n" +
			"running (--force overrides; exit status 4), starts fresh when a reset was requested\n" +
			"(tether trim --reset, or RESET: TRUE in .tether/notes.md), and when the session's\n" +
			"context is at or over [wrap] threshold (default 90%) applies [wrap] policy: trim\n" +
			"(to fit_percent, default 60%, keeping a backup) or fresh. TETHER_DISABLE_TRIM=1 turns\n" +
			"the automatic trim off.\n\n" +
			"--handoff (or [wrap] handoff = true) gives a fresh Claude session that replaces one\n" +
			"that could not be resumed a short summary of it through --append-system-prompt:\n" +
			"first and latest requests, files read and modified, commits, work references.",
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
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	args := opts.Args
	env := os.Environ()
	if opts.SelfReport || (cfg.Hooks.SelfReport && opts.Harness == wrap.Claude) {
		if opts.Harness != wrap.Claude {
			return usageErr(fmt.Errorf("--self-report needs claude: codex has no way to append to the system prompt"))
		}
		args = wrap.AppendSystemPrompt(args, wrap.SelfReportInstruction)
		// Tells the Stop hook (tether hook) to parse the self-report.
		env = append(env, envSelfReport+"=1")
	}
	started := a.Now()
	wopts := wrap.Options{
		Harness:     opts.Harness,
		Bin:         bin,
		Args:        args,
		Root:        a.Root(),
		Env:         env,
		ClaudeDir:   a.Loc.ClaudeDir,
		CodexDir:    a.Loc.CodexDir,
		Interactive: a.IO.StdinTTY,
		Log:         a.Log(),
		Stderr:      a.IO.ErrOut,
		Exec:        a.exec,
		StateDir:    a.Loc.StateDir,
		Threshold:   cfg.Wrap.Threshold,
		Policy:      cfg.Wrap.Policy,
		FitPercent:  cfg.Wrap.FitPercent,
		Windows:     a.Windows(),
		DisableTrim: trim.Disabled(a.Getenv),
		Force:       opts.Force,
		Abbrev:      a.abbrev(),
	}
	if st, _, err := a.archiveStore(); err == nil {
		wopts.Archive = st
	}
	if opts.Handoff || cfg.Wrap.Handoff {
		wopts.Handoff = a.handoff
	}
	code, err := wrap.Run(wopts)
	var running *wrap.RunningError
	if errors.As(err, &running) {
		return exitcode.With(exitcode.Refused, err)
	}
	if err != nil {
		return err
	}
	if a.IO.StderrTTY && cfg.Wrap.ExitLine && a.Getenv("TETHER_EXIT_LINE") != "0" {
		if line := termsafe.String(a.exitLine(opts, started)); line != "" {
			if a.IO.ColorErr() {
				line = "\x1b[2m" + line + "\x1b[0m"
			}
			fmt.Fprintln(a.IO.ErrOut, line)
		}
	}
	if code != 0 {
		// The program has said what went wrong; leave with its status.
		return exitcode.Silent{Code: code}
	}
	return nil
}

// exitLine says which session just ran, how full its context is and how to
// get back to it. The hooks keep that state; without it (hooks not
// installed) there is nothing reliable to say and the line is skipped.
func (a *App) exitLine(opts runOptions, started time.Time) string {
	st, err := state.LatestForRoot(a.Loc.StateDir, a.Root().Path)
	res := wrap.ParseResume(opts.Harness, opts.Args)
	if res.Kind == "id" && (err != nil || !identity.SameSession(st.SessionID, res.ID)) {
		st, err = state.LoadSession(a.Loc.StateDir, res.ID)
	}
	if err != nil || st.SessionID == "" || st.Updated.Before(started.Add(-time.Second)) {
		return ""
	}
	short := a.abbrev()(st.SessionID, filepath.Dir(st.TranscriptPath))
	return formatExitLine(opts.Harness, res.Print, st, short)
}

// formatExitLine writes the exit line for st. Claude Code prints its own
// "Resume this session with: claude --resume ID" as it exits, and Codex's
// TUI "To continue this session, run: codex resume ID", so the line names
// the command only after `codex exec`, which prints none.
func formatExitLine(h wrap.Harness, print bool, st state.Session, short string) string {
	ctx := "ctx –"
	if st.UsageKnown && st.Window > 0 {
		ctx = "ctx " + gauge.Pct(st.Percent) + "%"
	}
	line := fmt.Sprintf("tether: session %s · %s", termsafe.String(short), ctx)
	if h == wrap.Codex && print {
		line += " · resume: codex resume " + st.SessionID
	}
	return line
}

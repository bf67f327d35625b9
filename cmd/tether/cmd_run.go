package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/cmd/internal/hot"
)

func (a *App) runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run the real claude, codex or opencode with the identity root pinned and resume failures handled",
		ArgsUsage: "[--self-report] [--force] [--handoff] claude|codex|opencode [ARGS...]",
		Description: "Everything after the program name is passed through untouched, as are the terminal,\n" +
			"signals and the exit status. The identity root of the current directory is exported\n" +
			"as TETHER_IDENTITY_ROOT and the program starts in it. When a resume by id cannot work\n" +
			"(the session is missing, empty or corrupt, or the resume fails with prompt too long)\n" +
			"tether says so on stderr and starts one fresh session instead; a Claude session the\n" +
			"API refuses as too long is first trimmed to fit (backup kept) and resumed once more.\n" +
			"With -p --output-format json, stdout carries only the document of the attempt that\n" +
			"counts.\n\n" +
			"Invoked as 'claude', 'codex' or 'opencode' (a symlink to tether) it behaves as\n" +
			"'tether run <name>'. The real binary is the first on PATH that is not tether itself,\n" +
			"or $TETHER_CLAUDE_BIN / $TETHER_CODEX_BIN / $TETHER_OPENCODE_BIN.\n\n" +
			"An OpenCode session resumed by id (-s/--session ID) is looked up in OpenCode's\n" +
			"database (read-only): it runs in the directory it was recorded in (OpenCode resumed\n" +
			"from another one never exits), one an opencode process was started on is refused\n" +
			"(--force overrides; exit status 4), and an id the database lacks, or that OpenCode\n" +
			"says it cannot find, gets one notice and a fresh session.\n\n" +
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
			opts, err := hot.ParseRunArgs(cmd.Args().Slice())
			if errors.Is(err, hot.ErrRunHelp) {
				// SkipFlagParsing leaves --help to us.
				return showHelp(ctx, cmd)
			}
			if err != nil {
				return usageErr(err)
			}
			if a.Finder == nil {
				a.Finder = a.finder
			}
			return hot.RunWrap(a.Deps, opts, a.exec, a.handoff)
		},
	}
}

// finder is the session reader of a, when it reads one session without
// listing them all (agent.Finder: an agent whose sessions are in a
// database), for the wrapper (hot.Deps.Finder); nil otherwise.
func (a *App) finder(ag agent.Agent) agent.Finder {
	for _, l := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		if l.Name() == ag.Name() {
			f, _ := l.Sessions(agent.ReaderConfig{Windows: a.Windows()}).(agent.Finder)
			return f
		}
	}
	return nil
}

package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/internal/corpus"
)

type genCorpusOptions struct {
	Dir      string
	Sessions int
	Projects int
	Seed     uint64
	MaxSize  int64
	Huge     bool
	Size     int64
	Claude   bool
}

// devCommand holds tools for developing tether itself; hidden from help.
func (a *App) devCommand() *cli.Command {
	return &cli.Command{
		Name:   "dev",
		Usage:  "tools for developing tether (benchmark corpus)",
		Hidden: true,
		Commands: []*cli.Command{{
			Name:  "gen-corpus",
			Usage: "write a synthetic Claude Code + Codex history for benchmarks",
			Description: "Writes DIR/.claude/projects/…, DIR/.codex/sessions/… and DIR/.codex/state_5.sqlite,\n" +
				"deterministic from --seed. Point CLAUDE_CONFIG_DIR=DIR/.claude and CODEX_HOME=DIR/.codex at it.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "dir", Usage: "where to write (a HOME-like `DIR`)", Required: true},
				&cli.IntFlag{Name: "sessions", Value: 1000, Usage: "number of sessions"},
				&cli.IntFlag{Name: "projects", Value: 50, Usage: "number of working directories"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed"},
				&cli.StringFlag{Name: "max-size", Usage: "cap one transcript at this `SIZE` (e.g. 64M, 1G; default 512M)"},
				&cli.BoolFlag{Name: "huge", Usage: "add a few transcripts over 1 GiB"},
				&cli.StringFlag{Name: "size", Usage: "make every transcript about this `SIZE` instead of drawing sizes"},
				&cli.BoolFlag{Name: "claude-only", Usage: "no Codex sessions"},
			},
			Action: func(ctx context.Context, cmd *cli.Command) error {
				opts := genCorpusOptions{Dir: cmd.String("dir"), Sessions: int(cmd.Int("sessions")), Projects: int(cmd.Int("projects")),
					Seed: cmd.Uint64("seed"), Huge: cmd.Bool("huge")}
				if s := cmd.String("max-size"); s != "" {
					n, err := parseSize(s)
					if err != nil {
						return usageErr(fmt.Errorf("--max-size: %w", err))
					}
					opts.MaxSize = n
				}
				if s := cmd.String("size"); s != "" {
					n, err := parseSize(s)
					if err != nil {
						return usageErr(fmt.Errorf("--size: %w", err))
					}
					opts.Size = n
				}
				opts.Claude = cmd.Bool("claude-only")
				if opts.Sessions <= 0 || opts.Projects <= 0 {
					return usageErr(fmt.Errorf("--sessions and --projects must be positive"))
				}
				return a.runGenCorpus(opts)
			},
		}},
	}
}

func (a *App) runGenCorpus(opts genCorpusOptions) error {
	share := 0.0
	if opts.Claude {
		share = -1
	}
	st, err := corpus.Generate(corpus.Options{Dir: opts.Dir, Sessions: opts.Sessions, Projects: opts.Projects,
		Seed: opts.Seed, MaxSize: opts.MaxSize, Huge: opts.Huge, Size: opts.Size, CodexShare: share})
	if err != nil {
		return fmt.Errorf("gen-corpus: %w", err)
	}
	fmt.Fprintf(a.IO.Out, "claude=%d codex=%d bytes=%d largest=%d %s\n", st.Claude, st.Codex, st.Bytes, st.Largest, st.LargestPath)
	return nil
}

// parseSize reads 123, 64K, 64M, 1G (binary units).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(strings.ToUpper(s), "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(strings.ToUpper(s), "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return n * mult, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/summarize"
	"github.com/tether-dev/tether/wrap"
)

// Lifecycle log events of summaries (metadata only: never the input or
// the reply).
const (
	evSummarized     = "summary_written"
	evSummarySkipped = "summary_skipped"
)

type sessionsSummarizeOptions struct {
	sessionsBase
	IDs         []string
	Since       time.Duration
	All         bool
	DryRun      bool
	Force       bool
	Concurrency int
	Timeout     time.Duration
	Budget      int
	DataDir     string
	// Agents read the end of each session's transcript.
	Agents agent.Registry
	// Auto: started by the SessionEnd hook; quiet, and at most one at a
	// time (LockPath).
	Auto     bool
	LockPath string
	Provider summarize.Provider
	Log      *eventlog.Log
}

func (a *App) sessionsSummarizeCommand() *cli.Command {
	return &cli.Command{
		Name:      "summarize",
		Usage:     "summarize sessions with the provider you chose: title, objective, what was done, where it stopped, what is next",
		ArgsUsage: "ID… | --since DURATION | --all",
		Description: "Sends a bounded digest of each session (cwd, repositories, files, commits, work\n" +
			"references, first and latest prompts, last tool calls by name and path, last\n" +
			"assistant text, previous summary; at most [summarize] budget_tokens, default 8000)\n" +
			"to the provider and stores the validated reply in $XDG_DATA_HOME/tether/summaries.\n" +
			"A session is summarized again only when it changed (or with --force). Summaries\n" +
			"cost money: no provider is set until you set [summarize] provider or pass --provider.\n\n" +
			"Examples:\n" +
			"  tether sessions summarize 4a36                  # one session\n" +
			"  tether sessions summarize --since 7d            # every session active this week\n" +
			"  tether sessions summarize 4a36 --dry-run        # print the input and the command; send nothing\n" +
			"  tether sessions summarize 4a36 --provider anthropic --model claude-haiku-4-5\n" +
			"  tether sessions show 4a36                       # the summary is shown there",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Usage: "every session active within `DURATION` (e.g. 24h, 7d)"},
			&cli.BoolFlag{Name: "all", Usage: "every session (archived Codex threads too)"},
			&cli.StringFlag{Name: "provider", Usage: "use provider `NAME` (claude, codex, opencode, anthropic or command) instead of [summarize] provider"},
			&cli.StringFlag{Name: "model", Usage: "the provider's `MODEL` (overrides [summarize] model)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print each input and the provider command; send nothing, store nothing"},
			&cli.BoolFlag{Name: "force", Usage: "summarize again even when the stored summary is current"},
			&cli.IntFlag{Name: "concurrency", Usage: "summarize `N` sessions at once", DefaultText: "[summarize] concurrency, 2"},
			&cli.BoolFlag{Name: "auto", Hidden: true, Usage: "run as the SessionEnd hook's background job"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts, err := a.summarizeOptions(cmd)
			if err != nil {
				return err
			}
			return runSessionsSummarize(ctx, opts)
		},
	}
}

func (a *App) summarizeOptions(cmd *cli.Command) (sessionsSummarizeOptions, error) {
	var opts sessionsSummarizeOptions
	cfg, err := a.Config()
	if err != nil {
		return opts, err
	}
	opts.IDs, opts.All, opts.DryRun, opts.Force, opts.Auto = cmd.Args().Slice(), cmd.Bool("all"), cmd.Bool("dry-run"), cmd.Bool("force"), cmd.Bool("auto")
	if s := cmd.String("since"); s != "" {
		if opts.Since, err = parseDuration(s); err != nil {
			return opts, usageErr(fmt.Errorf("--since: %w", err))
		}
	}
	if len(opts.IDs) == 0 && opts.Since == 0 && !opts.All {
		return opts, usageErr(errors.New("summarize takes session IDs, --since DURATION or --all (see 'tether sessions summarize --help')"))
	}
	if len(opts.IDs) > 0 && (opts.Since > 0 || opts.All) {
		return opts, usageErr(errors.New("summarize takes IDs or --since/--all, not both"))
	}
	opts.Concurrency = cfg.Summarize.Concurrency
	if n := cmd.Int("concurrency"); n != 0 {
		if n < 1 {
			return opts, usageErr(errors.New("--concurrency: must be at least 1"))
		}
		opts.Concurrency = int(n)
	}
	opts.Timeout = time.Duration(cfg.Summarize.TimeoutSeconds) * time.Second
	opts.Budget = cfg.Summarize.BudgetTokens
	opts.DataDir, opts.LockPath, opts.Log = a.Loc.DataDir, state.SummarizeLockPath(a.Loc.StateDir), a.Log()
	opts.Agents = a.Agents()
	name, model := cfg.Summarize.Provider, cfg.Summarize.Model
	if p := cmd.String("provider"); p != "" {
		if p != name {
			model = "" // the configured model belongs to the configured provider
		}
		name = p
	}
	if m := cmd.String("model"); m != "" {
		model = m
	}
	popts := summarize.Options{Provider: name, Model: model, Command: cfg.Summarize.Command, Getenv: a.Getenv, Env: a.providerEnv()}
	self, _ := os.Executable()
	switch name {
	case summarize.ProviderClaude:
		popts.Bin, _ = wrap.FindBinary("claude", a.Getenv, self, []string{a.Loc.ShimsDir()})
	case summarize.ProviderCodex:
		popts.Bin, _ = wrap.FindBinary("codex", a.Getenv, self, []string{a.Loc.ShimsDir()})
	case summarize.ProviderOpenCode:
		popts.Bin, _ = wrap.FindBinary("opencode", a.Getenv, self, []string{a.Loc.ShimsDir()})
	}
	if opts.Provider, err = summarize.New(popts); err != nil {
		if errors.Is(err, summarize.ErrNoProvider) {
			return opts, exitcode.With(exitcode.Refused, err)
		}
		if errors.Is(err, summarize.ErrRefused) {
			return opts, exitcode.With(exitcode.Refused, err)
		}
		return opts, usageErr(err)
	}
	if opts.sessionsBase, err = a.base(""); err != nil {
		return opts, err
	}
	return opts, nil
}

// providerEnv is this process's environment for the provider's program
// (the user's login, proxies, CLAUDE_CONFIG_DIR), with the locations
// tether was given (tests inject them) and TETHER_IN_HOOK set, so that
// tether's own hooks in a headless claude/codex run return at once: no
// log noise, no auto-summary of the summary run.
func (a *App) providerEnv() []string {
	env := os.Environ()
	for _, k := range []string{"HOME", "PATH", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
		"XDG_CACHE_HOME", "XDG_DATA_HOME", "TMPDIR"} {
		if v := a.Getenv(k); v != "" && os.Getenv(k) != v {
			env = append(env, k+"="+v)
		}
	}
	return append(env, hot.EnvInHook+"=1")
}

func runSessionsSummarize(ctx context.Context, opts sessionsSummarizeOptions) error {
	if opts.Auto {
		unlock, ok := tryLock(opts.LockPath)
		if !ok {
			opts.Log.Info(evSummarySkipped, "", slog.String("reason", "another summary is running"))
			return nil
		}
		defer unlock()
	}
	sessions, err := summarizeTargets(ctx, opts)
	if err != nil {
		if opts.Auto {
			// Nobody sees the background job's stderr.
			opts.Log.Warn(hot.EvSummaryFailed, strings.Join(opts.IDs, " "), slog.String("kind", "resolve"), slog.String("error", err.Error()))
		}
		return err
	}
	if len(sessions) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "tether: no sessions to summarize")
		return nil
	}
	z := &summarize.Summarizer{Provider: opts.Provider, DataDir: opts.DataDir, Budget: opts.Budget, Force: opts.Force, Now: opts.Now}
	if opts.DryRun {
		return summarizeDryRun(ctx, opts, sessions)
	}
	return summarizeAll(ctx, opts, z, sessions)
}

// summarizeTargets resolves the IDs, or lists the sessions --since/--all
// select, newest first.
func summarizeTargets(ctx context.Context, opts sessionsSummarizeOptions) ([]catalog.Session, error) {
	if len(opts.IDs) > 0 {
		var out []catalog.Session
		for _, id := range opts.IDs {
			s, err := resolveSession(ctx, opts.Catalog, id)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	all, _, err := opts.Catalog.List(ctx, catalog.ListOptions{All: opts.All})
	if err != nil && len(all) == 0 {
		return nil, err
	}
	var out []catalog.Session
	for _, s := range all {
		if opts.Since > 0 && s.LastActivity.Before(opts.Now().Add(-opts.Since)) {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func summarizeDryRun(ctx context.Context, opts sessionsSummarizeOptions, sessions []catalog.Session) error {
	w := opts.IO.Out
	for _, s := range sessions {
		ev, err := summarize.Gather(ctx, opts.Catalog, opts.Agents, s, opts.DataDir)
		if err != nil {
			return fmt.Errorf("session %s: %w", s.ShortID(), err)
		}
		in := summarize.Build(ev, opts.Budget)
		fmt.Fprintf(w, "# session %s (dry run: nothing sent, nothing stored)\n", s.Key())
		fmt.Fprintf(w, "# provider: %s\n", opts.Provider.Describe())
		if prev := ev.Previous; prev != nil && summarize.Fresh(prev, ev.Session.LastActivity) && !opts.Force {
			fmt.Fprintln(w, "# the stored summary is current: a real run sends nothing (--force redoes it)")
		}
		fmt.Fprintf(w, "# input: about %d tokens (budget %d)\n", in.Tokens, max(opts.Budget, summarize.MinBudget))
		fmt.Fprintln(w, termsafe.Text(summarize.Prompt(in)))
	}
	return nil
}

// summarizeAll runs up to Concurrency sessions at once. Each failure is
// reported on its own line and stores nothing; the exit status is 1 when
// any failed.
func summarizeAll(ctx context.Context, opts sessionsSummarizeOptions, z *summarize.Summarizer, sessions []catalog.Session) error {
	var (
		mu     sync.Mutex
		done   int
		failed int
		wg     sync.WaitGroup
		// refused: the provider cannot work at all; said once, exit 4.
		refused error
	)
	progress := opts.IO.StderrTTY && len(sessions) > 1 && !opts.Auto
	sem := make(chan struct{}, max(1, opts.Concurrency))
	report := func(s catalog.Session, res summarize.Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		done++
		if progress {
			fmt.Fprint(opts.IO.ErrOut, "\r\033[K")
		}
		log := opts.Log.With(s.Harness, s.IdentityRoot)
		attrs := []slog.Attr{slog.String("provider", opts.Provider.Name())}
		switch {
		case errors.Is(err, summarize.ErrRefused):
			failed++
			refused = err
		case err != nil:
			failed++
			fmt.Fprintf(opts.IO.ErrOut, "tether: session %s: %s\n", s.ShortID(), termsafe.String(err.Error()))
			log.Warn(hot.EvSummaryFailed, s.ID, append(attrs, slog.String("kind", failureKind(err)))...)
		case res.Cached:
			fmt.Fprintf(opts.IO.Out, "%s  current   %s\n", s.ShortID(), termsafe.Text(res.Summary.Title))
		default:
			fmt.Fprintf(opts.IO.Out, "%s  summarized  %s\n", s.ShortID(), termsafe.Text(res.Summary.Title))
			log.Info(evSummarized, s.ID, append(attrs, slog.Int("input_tokens", res.Input.Tokens), slog.Int("cuts", len(res.Input.Cut)))...)
		}
		if progress && done < len(sessions) {
			fmt.Fprintf(opts.IO.ErrOut, "tether: summarizing %d/%d (%d failed)", done, len(sessions), failed)
		}
	}
	for _, s := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func(s catalog.Session) {
			defer func() { <-sem; wg.Done() }()
			res, err := summarizeOne(ctx, opts, z, s)
			report(s, res, err)
		}(s)
	}
	wg.Wait()
	if refused != nil {
		return exitcode.With(exitcode.Refused, refused)
	}
	if failed > 0 {
		return exitcode.With(exitcode.Error, fmt.Errorf("%d of %d %s could not be summarized", failed, len(sessions), plural(len(sessions), "session", "sessions")))
	}
	return nil
}

func summarizeOne(ctx context.Context, opts sessionsSummarizeOptions, z *summarize.Summarizer, s catalog.Session) (summarize.Result, error) {
	ev, err := summarize.Gather(ctx, opts.Catalog, opts.Agents, s, opts.DataDir)
	if err != nil {
		return summarize.Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	return z.Run(ctx, ev)
}

// failureKind classifies an error for the log without its text (which may
// quote the provider's output).
func failureKind(err error) string {
	switch {
	case errors.Is(err, summarize.ErrInvalidReply):
		return "invalid_reply"
	case errors.Is(err, summarize.ErrRefused):
		return "refused"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "provider_error"
}

// tryLock takes a non-blocking exclusive lock on path; ok is false when
// another process holds it.
func tryLock(path string) (unlock func(), ok bool) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true
}

// startBackground starts this tether with args detached (see
// hot.StartBackground): the hook's background jobs (hot.Hook). Tests
// replace it.
var startBackground = func(args []string) (pid int, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	return hot.StartBackground(self, args)
}

// printSummary is the summary block of `sessions show`.
func printSummary(w io.Writer, sum *catalog.Summary, now time.Time) {
	if sum == nil {
		return
	}
	state := "current"
	if !sum.Current {
		state = "the session changed since; 'tether sessions summarize' redoes it"
	}
	fmt.Fprintf(w, "summary:       %s\n", termsafe.Text(sum.Title))
	fmt.Fprintf(w, "               by %s, %s ago (%s)\n", termsafe.Text(sum.Provider+" "+sum.Model), relTime(now, sum.Created), state)
	for _, f := range [][2]string{{"objective", sum.Objective}, {"completed", sum.Completed}, {"current work", sum.CurrentWork}, {"likely next", sum.LikelyNext}} {
		if f[1] != "" {
			fmt.Fprintf(w, "  %-13s %s\n", f[0]+":", strings.ReplaceAll(termsafe.Text(f[1]), "\n", "\n                "))
		}
	}
}

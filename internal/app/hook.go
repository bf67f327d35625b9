package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent/jsonl"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
)

// envInHook marks a process tree started from inside tether's hook, so a
// hook that (through some chain) fires hooks again returns at once.
const envInHook = "TETHER_IN_HOOK"

// envSelfReport, set to 1 (by the wrapper's --self-report), turns on the
// self-report parsing for the sessions it starts.
const envSelfReport = "TETHER_SELF_REPORT"

// hookTimeout is tether's own budget per hook, well under the timeout it
// installs for the agents (5 s), so tether gives up before they kill it.
const hookTimeout = 2 * time.Second

type hookOptions struct {
	IO      *iostreams.IOStreams
	Args    []string
	Env     hooks.Env
	Read    hooks.ReadLimits
	Timeout time.Duration
	// InHook is set when this process already runs under a tether hook.
	InHook bool
	// ConfigErr is a config problem to log; the hook runs on defaults.
	ConfigErr error
	// Archive, when set, archives the transcript at SessionStart and
	// SessionEnd (tether archive).
	Archive func(harness, sessionID, transcript string)
}

func (a *App) hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "the command Claude Code and Codex hooks call (reads the event payload on stdin)",
		ArgsUsage: "[EVENT] [--harness claude-code|codex] [PAYLOAD-JSON]",
		Hidden:    true,
		Description: "Installed by 'tether hooks install'; not meant to be run by hand. Reads one hook\n" +
			"payload from stdin (or a JSON argument, as Codex's notify passes it), records the\n" +
			"event in the lifecycle log and the session's state, prints nothing and always\n" +
			"exits 0: its own errors go to the lifecycle log, never to the agent.",
		// Parsed by hand: a usage error must not become exit status 2,
		// which Claude Code treats as "block".
		SkipFlagParsing: true,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			opts := hookOptions{IO: a.IO, Args: cmd.Args().Slice(), Read: hooks.DefaultReadLimits,
				Timeout: hookTimeout, InHook: a.Getenv(envInHook) != ""}
			if opts.InHook {
				return nil
			}
			os.Setenv(envInHook, "1")
			cfg, err := a.Config()
			opts.ConfigErr = err
			tail := jsonl.DefaultTail
			if m := cfg.Hooks.TailMaxKiB << 10; m > 0 {
				tail.Max = max(m, tail.Initial)
			}
			opts.Env = hooks.Env{
				StateDir: a.Loc.StateDir, CodexDir: a.Loc.CodexDir, Getenv: a.Getenv, Now: a.Now,
				Log: a.Log(), Tail: tail, Windows: a.Windows(),
				// The wrapper's --self-report exports TETHER_SELF_REPORT=1.
				SelfReport: cfg.Hooks.SelfReport || a.Getenv(envSelfReport) == "1",
			}
			opts.Archive = a.hookArchive
			if ended := runHook(ctx, opts); ended.SessionID != "" && cfg.Summarize.Auto && cfg.Summarize.Provider != "" {
				a.autoSummarize(ended.Harness, ended.SessionID)
			}
			return nil
		},
	}
}

// endedSession is the session a SessionEnd hook handled.
type endedSession struct{ Harness, SessionID string }

// runHook handles one hook invocation. Whatever goes wrong is logged, and
// the hook exits 0 with no output. It returns the session a SessionEnd
// ended (zero otherwise), for the background summary.
func runHook(ctx context.Context, opts hookOptions) (ended endedSession) {
	log := opts.Env.Log
	event, payloadArg := "", ""
	for i := 0; i < len(opts.Args); i++ {
		arg := opts.Args[i]
		switch {
		case arg == "--harness" && i+1 < len(opts.Args):
			i++
			opts.Env.Harness = normalizeHarness(opts.Args[i])
		case strings.HasPrefix(arg, "--harness="):
			opts.Env.Harness = normalizeHarness(strings.TrimPrefix(arg, "--harness="))
		case strings.HasPrefix(arg, "{"):
			payloadArg = arg
		case strings.HasPrefix(arg, "-"):
			log.Debug(eventlog.HookError, "", slog.String("error", "unknown hook argument "+arg))
		case event == "":
			event = arg
		}
	}
	if opts.ConfigErr != nil {
		log.Warn(eventlog.HookError, "", slog.String("error", opts.ConfigErr.Error()), slog.String("using", "defaults"))
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				log.Error(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", fmt.Sprint("panic: ", r)))
			}
		}()
		var err error
		if ended, err = hookOnce(opts, event, payloadArg); err != nil {
			log.Warn(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", err.Error()))
		}
	}()
	select {
	case <-done:
		return ended
	case <-ctx.Done():
		log.Warn(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", "hook timed out after "+opts.Timeout.String()))
	}
	return endedSession{}
}

func hookOnce(opts hookOptions, event, payloadArg string) (endedSession, error) {
	var data []byte
	if payloadArg != "" {
		data = []byte(payloadArg)
	} else {
		var err error
		data, err = hooks.ReadPayload(opts.IO.In, opts.Read)
		if err != nil && len(data) == 0 {
			return endedSession{}, fmt.Errorf("read payload: %w", err)
		}
	}
	p, err := hooks.ParsePayload(data)
	if err != nil {
		return endedSession{}, fmt.Errorf("parse payload (%d bytes): %w", len(data), err)
	}
	if event != "" && p.Event == "" {
		p.Event = event
	}
	if event != "" && p.Event != event {
		opts.Env.Log.Debug(eventlog.HookError, p.SessionID, slog.String("error",
			fmt.Sprintf("argument names %s but the payload %s; using the payload's", event, p.Event)))
	}
	res, err := hooks.Handle(opts.Env, p)
	if opts.Archive != nil && (p.Event == "SessionStart" || p.Event == "SessionEnd") && p.SessionID != "" {
		opts.Archive(res.Harness, p.SessionID, p.TranscriptPath)
	}
	if err != nil || res.Event != hooks.EvSessionEnd {
		return endedSession{}, err
	}
	return endedSession{Harness: res.Harness, SessionID: p.SessionID}, nil
}

func normalizeHarness(s string) string {
	switch strings.ToLower(s) {
	case "codex":
		return eventlog.Codex
	case "claude", "claude-code", "claudecode":
		return eventlog.ClaudeCode
	}
	return ""
}

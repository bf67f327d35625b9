package hot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
)

// EnvInHook marks a process tree started from inside tether's hook, so a
// hook that (through some chain) fires hooks again returns at once.
const EnvInHook = "TETHER_IN_HOOK"

// EnvSelfReport, set to 1 (by the wrapper's --self-report), turns on the
// self-report parsing for the sessions it starts.
const EnvSelfReport = "TETHER_SELF_REPORT"

// hookTailInitial is the hook's first read of a transcript's end. At Stop
// the turn's usage is in the last record or a few before it; the window
// doubles (up to [hooks] tail_max_kib) when a large record is in the way.
// 32 KiB rather than jsonl.DefaultTail's 256: every byte of the first read
// is a fresh page to fault in and copy (256 KiB cost a Stop hook 0.19-0.34
// ms more CPU, whole processes measured interleaved).
const hookTailInitial = 32 << 10

// hookTimeout is tether's own budget per hook, well under the timeout it
// installs for the agents (5 s), so tether gives up before they kill it.
const hookTimeout = 2 * time.Second

type HookOptions struct {
	IO      *iostreams.IOStreams
	Args    []string
	Env     hooks.Env
	Read    hooks.ReadLimits
	Timeout time.Duration
	// Started is when the budget began (zero: when RunHook is called).
	Started time.Time
	// InHook is set when this process already runs under a tether hook.
	InHook bool
	// ConfigErr is a config problem to log; the hook runs on defaults.
	ConfigErr error
	// Archive, when set, archives the transcript at SessionStart and
	// SessionEnd (tether archive).
	Archive func(harness, sessionID, transcript string)
	// Export, when set, is told of a session that ended a turn (Stop) or
	// ended (SessionEnd): AutoExport.
	Export func(harness, sessionID string)
	// GiveUp is called once when the hook is still running after Timeout
	// (nil: the process exits with status 0 and no output).
	GiveUp func()
}

// Hook is `tether hook ARGS…`: it handles one hook invocation and never
// fails (see RunHook). What it leaves to the full tether it starts with
// start, in the background (the hook returns at once; nil: nothing is
// started): after a SessionEnd, with [summarize] auto and a provider, the
// summary (AutoSummarize); after an exported agent's turn or session
// ends, the archive's export of the session (AutoExport).
func Hook(ctx context.Context, d *Deps, args []string, start func(args []string) (pid int, err error)) {
	opts := HookOptions{IO: d.IO, Args: args, Read: hooks.DefaultReadLimits,
		Timeout: hookTimeout, Started: time.Now(), InHook: d.Getenv(EnvInHook) != ""}
	if d.Exit != nil {
		opts.GiveUp = func() { d.Exit(0) }
	}
	if opts.InHook {
		return
	}
	// The budget starts here, before the config, the log or anything
	// else is read: past it the hook ends silently (RunHook's watchdog,
	// which logs, takes over once the log is known).
	early := time.AfterFunc(opts.Timeout, opts.giveUp)
	if d.Unsafe() != nil {
		// Nothing read from or written to a directory others can write
		// (see UnsafeDir); doctor says why.
		early.Stop()
		return
	}
	os.Setenv(EnvInHook, "1")
	cfg, err := d.Config()
	opts.ConfigErr = err
	tail := jsonl.TailLimits{Initial: hookTailInitial, Max: jsonl.DefaultTail.Max}
	if m := cfg.Hooks.TailMaxKiB << 10; m > 0 {
		tail.Max = max(m, tail.Initial)
	}
	opts.Env = hooks.Env{
		StateDir: d.Loc.StateDir, Agents: d.Agents(), Getenv: d.Getenv, Now: d.Now,
		Log: d.Log(), Tail: tail, Windows: d.Windows(),
		// The wrapper's --self-report exports TETHER_SELF_REPORT=1.
		SelfReport: cfg.Hooks.SelfReport || d.Getenv(EnvSelfReport) == "1",
	}
	opts.Archive = HookArchive(d)
	var summarize func(harness, sessionID string)
	if start != nil {
		summarize, opts.Export = AutoSummarize(d, start), AutoExport(d, start)
	}
	if !early.Stop() {
		return // given up already
	}
	if ended := RunHook(ctx, opts); ended.SessionID != "" && cfg.Summarize.Auto && cfg.Summarize.Provider != "" && summarize != nil {
		summarize(ended.Harness, ended.SessionID)
	}
}

// giveUp ends the hook: GiveUp, else the process with status 0.
func (o *HookOptions) giveUp() {
	if o.GiveUp != nil {
		o.GiveUp()
		return
	}
	os.Exit(0)
}

// Ended is the session a SessionEnd hook handled.
type Ended struct{ Harness, SessionID string }

// RunHook handles one hook invocation. Whatever goes wrong is logged, and
// the hook exits 0 with no output. It returns the session a SessionEnd
// ended (zero otherwise), for the background summary.
func RunHook(ctx context.Context, opts HookOptions) (ended Ended) {
	log := opts.Env.Log
	event, payloadArgs := "", []string(nil)
	for i := 0; i < len(opts.Args); i++ {
		arg := opts.Args[i]
		switch {
		case arg == "--harness" && i+1 < len(opts.Args):
			i++
			opts.Env.Harness = NormalizeHarness(opts.Args[i])
		case strings.HasPrefix(arg, "--harness="):
			opts.Env.Harness = NormalizeHarness(strings.TrimPrefix(arg, "--harness="))
		case strings.HasPrefix(arg, "{"):
			payloadArgs = append(payloadArgs, arg)
		case strings.HasPrefix(arg, "-"):
			log.Debug(eventlog.HookError, "", slog.String("error", "unknown hook argument "+arg))
		case event == "":
			event = arg
		}
	}
	if opts.ConfigErr != nil {
		log.Warn(eventlog.HookError, "", slog.String("error", opts.ConfigErr.Error()), slog.String("using", "defaults"))
	}
	// The hook runs on this goroutine. A watchdog gives up after
	// opts.Timeout, or when ctx ends: it logs why and calls GiveUp, which
	// ends the process with status 0, as the agent would end it, only
	// sooner.
	var once sync.Once
	giveUp := func() {
		once.Do(func() {
			log.Warn(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", "hook timed out after "+opts.Timeout.String()))
			opts.giveUp()
		})
	}
	left := opts.Timeout
	if !opts.Started.IsZero() {
		left -= time.Since(opts.Started)
	}
	watchdog := time.AfterFunc(left, giveUp)
	defer watchdog.Stop()
	defer context.AfterFunc(ctx, giveUp)()
	defer func() {
		if r := recover(); r != nil {
			log.Error(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", fmt.Sprint("panic: ", r)))
			ended = Ended{}
		}
	}()
	if len(payloadArgs) == 0 {
		payloadArgs = []string{""} // the payload is on stdin
	}
	// Several payload arguments are events in order (what OpenCode's
	// plugin had queued when OpenCode exited), handled one by one within
	// the one budget.
	for _, arg := range payloadArgs {
		e, err := hookOnce(opts, event, arg)
		if err != nil {
			log.Warn(eventlog.HookError, "", slog.String("hook_event", event), slog.String("error", err.Error()))
		}
		if e.SessionID != "" {
			ended = e
		}
	}
	return ended
}

func hookOnce(opts HookOptions, event, payloadArg string) (Ended, error) {
	var data []byte
	if payloadArg != "" {
		data = []byte(payloadArg)
	} else {
		var err error
		data, err = hooks.ReadPayload(opts.IO.In, opts.Read)
		if err != nil && len(data) == 0 {
			return Ended{}, fmt.Errorf("read payload: %w", err)
		}
	}
	p, err := hooks.ParsePayload(data, opts.Env.Agents)
	if err != nil {
		return Ended{}, fmt.Errorf("parse payload (%d bytes): %w", len(data), err)
	}
	if event != "" && p.Event == "" {
		p.Event = event
	}
	if event != "" && p.Event != event {
		opts.Env.Log.Debug(eventlog.HookError, p.SessionID, slog.String("error",
			fmt.Sprintf("argument names %s but the payload %s; using the payload's", event, p.Event)))
	}
	res, err := hooks.Handle(opts.Env, p)
	if res.SystemMessage != "" && err == nil {
		writeSystemMessage(opts.IO.Out, res.SystemMessage)
	}
	if opts.Archive != nil && (p.Event == "SessionStart" || p.Event == "SessionEnd") && p.SessionID != "" {
		opts.Archive(res.Harness, p.SessionID, p.TranscriptPath)
	}
	if opts.Export != nil && (p.Event == "Stop" || p.Event == "SessionEnd") && p.SessionID != "" && res.Harness != "" {
		opts.Export(res.Harness, p.SessionID)
	}
	if err != nil || res.Event != hooks.EvSessionEnd {
		return Ended{}, err
	}
	return Ended{Harness: res.Harness, SessionID: p.SessionID}, nil
}

// writeSystemMessage is a SessionStart hook's output showing text to the
// user: Claude Code reads a JSON object on stdout; systemMessage is shown
// in its screen and recorded in the transcript, and does not reach the
// model (only plain stdout or additionalContext would).
func writeSystemMessage(w io.Writer, text string) {
	out, err := json.Marshal(struct {
		SystemMessage string `json:"systemMessage"`
	}{termsafe.String(text)})
	if err == nil {
		w.Write(append(out, '\n'))
	}
}

// NormalizeHarness maps the spellings of --harness to the log's names
// ("" when unknown).
func NormalizeHarness(s string) string {
	switch strings.ToLower(s) {
	case "codex":
		return eventlog.Codex
	case "claude", "claude-code", "claudecode":
		return eventlog.ClaudeCode
	case "opencode":
		return eventlog.OpenCode
	}
	return ""
}

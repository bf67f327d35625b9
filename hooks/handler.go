package hooks

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
)

// Env is what Handle needs from its process.
type Env struct {
	StateDir string
	CodexDir string
	Getenv   func(string) string
	Now      func() time.Time
	// Log is the lifecycle log; Handle names the harness and identity
	// root on every record it writes.
	Log *eventlog.Log
	// Harness forces claude-code or codex; "" detects it from the payload.
	Harness string
	Open    jsonl.Opener
	Tail    jsonl.TailLimits
	// SelfReport enables track B: parse "[ctx: ~NN%]" at Stop.
	SelfReport bool
	// Windows answers the context window of a model.
	Windows agent.Windows
}

// Result says what Handle did, for tests and the caller's own logging.
type Result struct {
	Harness string
	Root    string
	Event   string // the lifecycle log event written ("" when none)
	State   State
	Saved   bool
}

// Lifecycle log event names.
const (
	EvSpawn          = "session_spawn"
	EvResume         = "session_resume"
	EvFork           = "session_fork"
	EvClear          = "session_clear"
	EvCompacted      = "session_compacted"
	EvSessionStart   = "session_start"
	EvTurnEnd        = "turn_end"
	EvTurnFailure    = "turn_failure"
	EvTurnInterrupt  = "turn_interrupt"
	EvCompactStart   = "compact_start"
	EvCompactEnd     = "compact_end"
	EvSessionEnd     = "session_end"
	EvSubagentStart  = "subagent_start"
	EvSubagentStop   = "subagent_stop"
	EvPathNormalized = "path_normalized"
	EvContextUsage   = "context_usage"
	EvToolEvent      = "tool_event"
	EvPromptSubmit   = "prompt_submit"
	EvNotification   = "notification"
	EvModelRequest   = "model_request"
	EvUnknownEvent   = "hook_unknown_event"
	EvHookError      = "hook_error"
)

// Handle records one hook event: it logs it, and for the events that
// change what is known about the session (start, turn end, compaction,
// end) updates the session's state. Tool and prompt events cost one small
// state read and a log line.
func Handle(env Env, p Payload) (Result, error) {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	res := Result{Harness: env.Harness}
	if res.Harness == "" {
		// Claude Code puts its session id in every hook's environment;
		// Codex puts none.
		res.Harness = DetectHarness(p, env.CodexDir, env.Getenv("CLAUDE_CODE_SESSION_ID") != "")
	}
	if p.SessionID == "" {
		env.Log.With(res.Harness, "").Warn(EvHookError, "", slog.String("hook_event", p.Event), slog.String("error", "payload has no session_id"))
		return res, errors.New("payload has no session_id")
	}
	if p.TranscriptPath == "" && res.Harness == agent.Codex && env.CodexDir != "" {
		// Codex's legacy notify sends no rollout path.
		p.TranscriptPath = codex.FindRollout(env.CodexDir, p.SessionID, false)
	}
	now := env.Now()
	st, loadErr := LoadSession(env.StateDir, p.SessionID)
	fresh := loadErr != nil
	if loadErr != nil && !errors.Is(loadErr, fs.ErrNotExist) {
		// A corrupt state file is replaced, not trusted.
		env.Log.With(res.Harness, "").Warn(EvHookError, p.SessionID, slog.String("error", loadErr.Error()))
		st = State{}
	}
	dirty := fresh
	if fresh {
		st = State{SessionID: p.SessionID, Harness: res.Harness, Started: now}
	}
	if st.Harness != res.Harness {
		st.Harness, dirty = res.Harness, true
	}

	// The identity root: the wrapper's, else the one pinned at the
	// session's first event, never moved by a later cwd.
	root := st.IdentityRoot
	if v := env.Getenv(identity.EnvRoot); v != "" {
		root = v
	} else if root == "" {
		base := p.Cwd
		if d := env.Getenv("CLAUDE_PROJECT_DIR"); d != "" && res.Harness == agent.Claude {
			base = d
		}
		if base != "" {
			root = identity.Resolve(base).Path
		}
	}
	if root != st.IdentityRoot {
		st.IdentityRoot, dirty = root, true
	}
	res.Root = root
	log := env.Log.With(res.Harness, root)
	sid := p.SessionID

	if p.Cwd != "" && p.Cwd != st.Cwd {
		if p.Cwd != root {
			log.Info(EvPathNormalized, sid, slog.String("cwd", p.Cwd),
				slog.String("normalized", identity.Resolve(p.Cwd).Path), slog.String("hook_event", p.Event))
		}
		st.Cwd, dirty = p.Cwd, true
	}
	if p.Model != "" && p.Model != st.Model && p.AgentID == "" {
		st.Model, dirty = p.Model, true
	}
	if p.TranscriptPath != "" && p.AgentID == "" && p.TranscriptPath != st.TranscriptPath {
		st.TranscriptPath, dirty = p.TranscriptPath, true
	}

	lifecycle := true
	switch p.Event {
	case "SessionStart":
		st.Ended = false
		attrs := []slog.Attr{slog.String("source", p.Source), slog.String("cwd", p.Cwd)}
		if p.Model != "" {
			attrs = append(attrs, slog.String("model", p.Model))
		}
		switch p.Source {
		case "startup":
			res.Event = EvSpawn
			attrs = append(attrs, slog.String("normalized_cwd", identity.Resolve(p.Cwd).Path))
			st.Started = now
		case "resume":
			res.Event = EvResume
			attrs = append(attrs, slog.String("transcript_path", p.TranscriptPath))
			if fi, err := os.Stat(p.TranscriptPath); err == nil {
				attrs = append(attrs, slog.Int64("transcript_bytes", fi.Size()))
			}
			attrs = append(attrs, updateUsage(env, &st, p, log)...)
		case "fork":
			res.Event = EvFork
			st.Started = now
		case "clear":
			res.Event = EvClear
			st.Started = now
			st.Tokens, st.Percent, st.UsageKnown = 0, 0, false
		case "compact":
			res.Event = EvCompacted
			attrs = append(attrs, afterCompaction(env, &st, res.Harness, p.TranscriptPath)...)
		default:
			res.Event = EvSessionStart
		}
		if v := gjsonInt(p.Raw, "context_tokens"); v > 0 {
			attrs = append(attrs, slog.Int64("reported_context_tokens", v))
		}
		log.Info(res.Event, sid, attrs...)
	case "Stop":
		res.Event = EvTurnEnd
		if p.AgentID != "" {
			// A Codex subagent's turn: its rollout is not the session's.
			res.Event = EvSubagentStop
			log.Info(res.Event, sid, slog.String("agent_id", p.AgentID), slog.String("agent_type", p.AgentType))
			break
		}
		pending := st.CompactPending
		attrs := updateUsage(env, &st, p, log)
		if pending && st.UsageKnown {
			// The first real number after a compaction.
			attrs = append(attrs, slog.Bool("first_after_compaction", true))
			st.CompactPending, st.TokensBeforeCompact = false, 0
		}
		log.Info(res.Event, sid, attrs...)
		if env.SelfReport {
			selfReport(log, sid, st, p)
		}
	case "StopFailure":
		// Fire-and-forget in -p mode: keep it to one log line.
		res.Event = EvTurnFailure
		attrs := []slog.Attr{slog.String("error", p.Error),
			slog.Bool("prompt_too_long", claude.IsPromptTooLong(p.Error, p.ErrorDetails))}
		if p.AgentID != "" {
			attrs = append(attrs, slog.String("agent_id", p.AgentID))
		}
		log.Warn(res.Event, sid, attrs...)
	case "PreCompact":
		res.Event = EvCompactStart
		attrs := []slog.Attr{slog.String("trigger", p.Trigger)}
		st.CompactPending, st.TokensBeforeCompact = true, 0
		if st.UsageKnown {
			st.TokensBeforeCompact = st.Tokens
			attrs = append(attrs, slog.Int64("tokens_before", st.Tokens))
		}
		log.Info(res.Event, sid, attrs...)
	case "PostCompact":
		res.Event = EvCompactEnd
		attrs := []slog.Attr{slog.String("trigger", p.Trigger)}
		switch {
		case st.TokensBeforeCompact > 0:
			attrs = append(attrs, slog.Int64("tokens_before", st.TokensBeforeCompact))
		case st.UsageKnown && !st.CompactPending:
			attrs = append(attrs, slog.Int64("tokens_before", st.Tokens))
		}
		attrs = append(attrs, afterCompaction(env, &st, res.Harness, p.TranscriptPath)...)
		log.Info(res.Event, sid, attrs...)
	case "SessionEnd":
		res.Event = EvSessionEnd
		st.Ended = true
		attrs := []slog.Attr{slog.String("reason", p.Reason)}
		if !st.Started.IsZero() && !fresh {
			attrs = append(attrs, slog.Int64("duration_ms", now.Sub(st.Started).Milliseconds()))
		}
		if st.UsageKnown {
			attrs = append(attrs, slog.Int64("tokens", st.Tokens), slog.Float64("pct", st.Percent))
		}
		// StopFailure is fire-and-forget in -p mode: Claude may exit before
		// its hook has run. A turn that ended in an API error is still
		// visible at the end of the transcript; record it here when the
		// StopFailure hook did not.
		if res.Harness == agent.Claude && st.LastEvent != "StopFailure" && p.TranscriptPath != "" {
			if errType, tooLong, ok := claude.LastAPIError(env.Open, p.TranscriptPath); ok {
				log.Warn(EvTurnFailure, sid, slog.String("error", errType), slog.Bool("prompt_too_long", tooLong),
					slog.String("detected_at", "session_end"))
			}
		}
		log.Info(res.Event, sid, attrs...)
	case "SubagentStart":
		res.Event = EvSubagentStart
		log.Info(res.Event, sid, slog.String("agent_id", p.AgentID), slog.String("agent_type", p.AgentType))
	case "SubagentStop":
		res.Event = EvSubagentStop
		attrs := []slog.Attr{slog.String("agent_id", p.AgentID), slog.String("agent_type", p.AgentType)}
		if p.AgentTranscript != "" {
			attrs = append(attrs, slog.String("agent_transcript_path", p.AgentTranscript))
		}
		log.Info(res.Event, sid, attrs...)
	case "Interrupt":
		res.Event = EvTurnInterrupt
		log.Info(res.Event, sid, slog.String("turn_id", p.TurnID))
	default:
		lifecycle = false
		res.Event = hotEvent(log, sid, p)
	}

	if lifecycle {
		st.LastEvent, dirty = p.Event, true
	}
	if dirty {
		st.Updated = now
		if err := Save(env.StateDir, st); err != nil {
			res.State = st
			return res, err
		}
		res.Saved = true
	}
	res.State = st
	return res, nil
}

// hotEvent logs the events that fire on every prompt, tool call or model
// request, at debug level, with names and counts only.
func hotEvent(log *eventlog.Log, sid string, p Payload) string {
	switch p.Event {
	case "UserPromptSubmit":
		log.Debug(EvPromptSubmit, sid, slog.Int("prompt_chars", len([]rune(gjsonStr(p.Raw, "prompt")))))
		return EvPromptSubmit
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PostToolBatch":
		log.Debug(EvToolEvent, sid, slog.String("hook_event", p.Event), slog.String("tool_name", p.ToolName))
		return EvToolEvent
	case "Notification":
		log.Debug(EvNotification, sid, slog.String("notification_type", p.NotificationType))
		return EvNotification
	case "PreModelRequest", "PostModelRequest":
		attrs := []slog.Attr{slog.String("hook_event", p.Event), slog.String("kind", p.Kind)}
		if p.Status != "" {
			attrs = append(attrs, slog.String("status", p.Status))
		}
		if v := gjsonInt(p.Raw, "token_usage.input_tokens"); v > 0 {
			attrs = append(attrs, slog.Int64("input_tokens", v), slog.Int64("cached_input_tokens", gjsonInt(p.Raw, "token_usage.cached_input_tokens")))
		}
		log.Debug(EvModelRequest, sid, attrs...)
		return EvModelRequest
	}
	log.Debug(EvUnknownEvent, sid, slog.String("hook_event", p.Event))
	return EvUnknownEvent
}

// afterCompaction reads the transcript right after a compaction. Claude
// Code fires PostCompact before it has always written the compact boundary:
// usage found before any boundary is the pre-compaction turn's, so the
// context after it is unknown until the boundary (its metadata has
// preTokens and postTokens) or the next turn is in the file.
func afterCompaction(env Env, st *State, harness, path string) []slog.Attr {
	u, err := readUsage(env, harness, path)
	switch {
	case err != nil:
		return []slog.Attr{slog.String("usage_error", err.Error())}
	case u.Compacted && u.PostTokens > 0:
		attrs := []slog.Attr{}
		if u.PreTokens > 0 {
			attrs = append(attrs, slog.Int64("compact_pre_tokens", u.PreTokens))
		}
		u.Found, u.Tokens = true, u.PostTokens
		applyUsage(env, st, u)
		st.CompactPending = false
		return append(attrs, slog.Int64("tokens_after", u.PostTokens), slog.Int64("window", st.Window), slog.Float64("pct", st.Percent))
	case u.Compacted:
		// Context usage restarts at the boundary; the next turn tells.
		st.CompactPending = true
		st.Tokens, st.Percent, st.UsageKnown = 0, 0, false
		return []slog.Attr{slog.Bool("tokens_after_known", false)}
	case u.Found:
		// Either the boundary is not written yet or it is further back
		// than the tail: unknown either way, until the next turn.
		st.CompactPending = true
		st.Tokens, st.Percent, st.UsageKnown = 0, 0, false
		return []slog.Attr{slog.Bool("tokens_after_known", false), slog.Bool("boundary_pending", true)}
	}
	st.Tokens, st.Percent, st.UsageKnown = 0, 0, false
	return []slog.Attr{slog.Bool("tokens_after_known", false)}
}

func readUsage(env Env, harness, path string) (agent.Usage, error) {
	if path == "" {
		return agent.Usage{}, errors.New("payload has no transcript_path")
	}
	if harness == agent.Codex {
		return codex.Usage(env.Open, path, env.Tail)
	}
	return claude.Usage(env.Open, path, env.Tail)
}

// updateUsage reads the transcript tail into st and returns the log
// attributes describing it.
// usageRetries and usageRetryWait bound how long a Stop hook waits for a
// transcript that does not yet hold the turn's usage: Claude writes the
// transcript asynchronously and, on a busy machine, can run the Stop hook
// before the assistant record is on disk. At most ~300 ms, only then.
const (
	usageRetries   = 4
	usageRetryWait = 75 * time.Millisecond
)

func updateUsage(env Env, st *State, p Payload, log *eventlog.Log) []slog.Attr {
	u, err := readUsage(env, st.Harness, p.TranscriptPath)
	for i := 0; err == nil && !u.Found && !u.Compacted && p.Event == "Stop" && i < usageRetries; i++ {
		time.Sleep(usageRetryWait)
		u, err = readUsage(env, st.Harness, p.TranscriptPath)
	}
	if err != nil {
		return []slog.Attr{slog.String("usage_error", err.Error())}
	}
	if !u.Found {
		attrs := []slog.Attr{slog.Bool("usage_found", false), slog.Int64("bytes_read", u.BytesRead)}
		if u.Compacted {
			st.Tokens, st.Percent, st.UsageKnown = 0, 0, false
			attrs = append(attrs, slog.Bool("after_compaction", true))
		}
		return attrs
	}
	return applyUsage(env, st, u)
}

func applyUsage(env Env, st *State, u agent.Usage) []slog.Attr {
	if u.Model != "" {
		st.Model = u.Model
	}
	st.Window, st.WindowSource = env.Windows.For(st.Model, st.ReportedWindow, u.Window)
	st.Tokens, st.UsageKnown = u.Tokens, true
	st.Percent = Percent(st.Tokens, st.Window)
	return []slog.Attr{
		slog.Int64("tokens", u.Tokens), slog.Int64("window", st.Window), slog.Float64("pct", st.Percent),
		slog.String("window_source", st.WindowSource), slog.String("model", st.Model),
		slog.Int64("transcript_bytes", u.Size), slog.Int64("bytes_read", u.BytesRead),
	}
}

var selfReportRE = regexp.MustCompile(`\[ctx:\s*~?\s*(\d{1,3}(?:\.\d+)?)\s*%\s*\]`)

// SelfReported returns the percentage of the last "[ctx: ~NN%]" in text.
func SelfReported(text string) (float64, bool) {
	m := selfReportRE.FindAllStringSubmatch(text, -1)
	if len(m) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil || v > 100 {
		return 0, false
	}
	return v, true
}

func selfReport(log *eventlog.Log, sid string, st State, p Payload) {
	attrs := []slog.Attr{}
	if st.UsageKnown {
		attrs = append(attrs, slog.Float64("sdk_pct", st.Percent), slog.Int64("tokens", st.Tokens), slog.Int64("window", st.Window))
	}
	if v, ok := SelfReported(p.LastAssistant); ok {
		attrs = append(attrs, slog.Float64("self_reported_pct", v))
		if st.UsageKnown {
			attrs = append(attrs, slog.Float64("drift_pct", float64(int((v-st.Percent)*10))/10))
		}
	} else {
		attrs = append(attrs, slog.Bool("self_report_missing", true))
	}
	log.Info(EvContextUsage, sid, attrs...)
}

package hooks

import (
	"cmp"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/state"
)

// handler computes one event's state transition on c.st and returns the
// lifecycle event it stands for and the log entries to write, in order.
type handler func(c *call) (string, []entry)

// events are the lifecycle events: they change what is known about the
// session and set its LastEvent. Everything else is a hot event.
var events = map[string]handler{
	"SessionStart":  onSessionStart,
	"Stop":          onStop,
	"StopFailure":   onStopFailure,
	"PreCompact":    onPreCompact,
	"PostCompact":   onPostCompact,
	"SessionEnd":    onSessionEnd,
	"SubagentStart": onSubagentStart,
	"SubagentStop":  onSubagentStop,
	"Interrupt":     onInterrupt,
}

// sessionStarts maps SessionStart's source to the event logged.
var sessionStarts = map[string]string{
	"startup": EvSpawn, "resume": EvResume, "fork": EvFork, "clear": EvClear, "compact": EvCompacted,
}

func onSessionStart(c *call) (string, []entry) {
	p, st := c.p, &c.st
	st.Ended = false
	attrs := []slog.Attr{slog.String("source", p.Source), slog.String("cwd", p.Cwd)}
	if p.Model != "" {
		attrs = append(attrs, slog.String("model", p.Model))
	}
	ev, ok := sessionStarts[p.Source]
	if !ok {
		ev = EvSessionStart
	}
	switch ev {
	case EvSpawn:
		attrs = append(attrs, slog.String("normalized_cwd", identity.Resolve(p.Cwd).Path))
		st.Started, st.RunStarted = c.now, c.now
	case EvResume:
		st.RunStarted = c.now
		// The session loaded: whatever failed before, it is not stale.
		state.ClearStale(c.env.StateDir, p.SessionID)
		if p.TranscriptPath != "" {
			attrs = append(attrs, slog.String("transcript_path", p.TranscriptPath))
		}
		usage := c.updateUsage()
		// The usage read names the size it read; say it once.
		if fi, err := os.Stat(p.TranscriptPath); err == nil && !hasAttr(usage, "transcript_bytes") {
			attrs = append(attrs, slog.Int64("transcript_bytes", fi.Size()))
		}
		attrs = append(attrs, usage...)
	case EvFork:
		st.Started, st.RunStarted = c.now, c.now
	case EvClear:
		st.Started, st.RunStarted = c.now, c.now
		forgetUsage(st)
	case EvCompacted:
		u, err := c.readUsage()
		attrs = append(attrs, afterCompaction(st, c.env.Windows, u, err)...)
	}
	if v := gjsonInt(p.Raw, "context_tokens"); v > 0 {
		attrs = append(attrs, slog.Int64("reported_context_tokens", v))
	}
	// A notice the wrapper left for this session is shown in the agent's
	// screen, where it can show one (Capabilities.StartNotice; Codex
	// 0.171.0 neither shows a SessionStart hook's systemMessage in `codex
	// exec` nor records it in the rollout: its notices are the wrapper's
	// to print).
	if c.agent.Capabilities().StartNotice && p.AgentID == "" {
		if text := state.TakeNotice(c.env.StateDir, c.res.Root, p.SessionID, p.Source, c.now); text != "" {
			c.res.SystemMessage = text
		}
	}
	return ev, []entry{info(ev, attrs...)}
}

func onStop(c *call) (string, []entry) {
	p, st := c.p, &c.st
	if p.AgentID != "" {
		// A Codex subagent's turn: its rollout is not the session's.
		return EvSubagentStop, []entry{info(EvSubagentStop, slog.String("agent_id", p.AgentID), slog.String("agent_type", p.AgentType))}
	}
	pending := st.CompactPending
	attrs := c.updateUsage()
	if pending && st.UsageKnown {
		// The first real number after a compaction.
		attrs = append(attrs, slog.Bool("first_after_compaction", true))
		st.CompactPending, st.TokensBeforeCompact = false, 0
	}
	out := []entry{info(EvTurnEnd, attrs...)}
	if c.env.SelfReport {
		out = append(out, selfReport(*st, p))
	}
	return EvTurnEnd, out
}

// onStopFailure is fire-and-forget in -p mode: one log line, no reads.
func onStopFailure(c *call) (string, []entry) {
	p := c.p
	attrs := []slog.Attr{slog.String("error", p.Error), slog.Bool("prompt_too_long", c.agent.PromptTooLong(p.Error, p.ErrorDetails))}
	if p.AgentID != "" {
		attrs = append(attrs, slog.String("agent_id", p.AgentID))
	}
	return EvTurnFailure, []entry{warn(EvTurnFailure, attrs...)}
}

func onPreCompact(c *call) (string, []entry) {
	st := &c.st
	attrs := []slog.Attr{slog.String("trigger", c.p.Trigger)}
	// A payload that carries the usage (agent.HookUsager) says the
	// context before the compaction, which no Stop may have told yet
	// (OpenCode compacts past its threshold within the turn).
	if h, ok := c.agent.(agent.HookUsager); ok {
		if u, ok := h.HookUsage(c.p.Raw); ok && u.Found {
			applyUsage(st, c.env.Windows, u)
		}
	}
	st.CompactPending, st.TokensBeforeCompact = true, 0
	if st.UsageKnown {
		st.TokensBeforeCompact = st.Tokens
		attrs = append(attrs, slog.Int64("tokens_before", st.Tokens))
	}
	return EvCompactStart, []entry{info(EvCompactStart, attrs...)}
}

func onPostCompact(c *call) (string, []entry) {
	st := &c.st
	attrs := []slog.Attr{slog.String("trigger", c.p.Trigger)}
	switch {
	case st.TokensBeforeCompact > 0:
		attrs = append(attrs, slog.Int64("tokens_before", st.TokensBeforeCompact))
	case st.UsageKnown && !st.CompactPending:
		attrs = append(attrs, slog.Int64("tokens_before", st.Tokens))
	}
	u, err := c.readUsage()
	attrs = append(attrs, afterCompaction(st, c.env.Windows, u, err)...)
	return EvCompactEnd, []entry{info(EvCompactEnd, attrs...)}
}

func onSessionEnd(c *call) (string, []entry) {
	p, st := c.p, &c.st
	st.Ended = true
	attrs := []slog.Attr{slog.String("reason", p.Reason)}
	// This run's length: a resumed session's creation may be days ago.
	if start := cmp.Or(st.RunStarted, st.Started); !start.IsZero() && !c.fresh {
		attrs = append(attrs, slog.Int64("duration_ms", c.now.Sub(start).Milliseconds()))
	}
	if st.UsageKnown {
		attrs = append(attrs, slog.Int64("tokens", st.Tokens), slog.Float64("pct", st.Percent))
	}
	var out []entry
	// StopFailure is fire-and-forget in -p mode: Claude may exit before
	// its hook has run. A turn that ended in an API error is still
	// visible at the end of the transcript (of an agent that records
	// one there); record it here when the StopFailure hook did not.
	if st.LastEvent != "StopFailure" && p.TranscriptPath != "" {
		if errType, tooLong, ok := c.agent.LastAPIError(c.env.Open, p.TranscriptPath); ok {
			out = append(out, warn(EvTurnFailure, slog.String("error", errType), slog.Bool("prompt_too_long", tooLong),
				slog.String("detected_at", "session_end")))
		}
	}
	return EvSessionEnd, append(out, info(EvSessionEnd, attrs...))
}

func onSubagentStart(c *call) (string, []entry) {
	return EvSubagentStart, []entry{info(EvSubagentStart, slog.String("agent_id", c.p.AgentID), slog.String("agent_type", c.p.AgentType))}
}

func onSubagentStop(c *call) (string, []entry) {
	attrs := []slog.Attr{slog.String("agent_id", c.p.AgentID), slog.String("agent_type", c.p.AgentType)}
	if c.p.AgentTranscript != "" {
		attrs = append(attrs, slog.String("agent_transcript_path", c.p.AgentTranscript))
	}
	return EvSubagentStop, []entry{info(EvSubagentStop, attrs...)}
}

func onInterrupt(c *call) (string, []entry) {
	return EvTurnInterrupt, []entry{info(EvTurnInterrupt, slog.String("turn_id", c.p.TurnID))}
}

// hotEvents are the events that fire on every prompt, tool call or model
// request: logged at debug level, with names and counts only.
var hotEvents = map[string]handler{
	"UserPromptSubmit": func(c *call) (string, []entry) {
		return EvPromptSubmit, []entry{debug(EvPromptSubmit, slog.Int("prompt_chars", len([]rune(gjsonStr(c.p.Raw, "prompt")))))}
	},
	"PreToolUse": toolEvent, "PostToolUse": toolEvent, "PostToolUseFailure": toolEvent,
	"PermissionRequest": toolEvent, "PostToolBatch": toolEvent,
	"Notification": func(c *call) (string, []entry) {
		return EvNotification, []entry{debug(EvNotification, slog.String("notification_type", c.p.NotificationType))}
	},
	"PreModelRequest": modelRequest, "PostModelRequest": modelRequest,
}

func hotEvent(c *call) (string, []entry) {
	if h, ok := hotEvents[c.p.Event]; ok {
		return h(c)
	}
	return EvUnknownEvent, []entry{debug(EvUnknownEvent, slog.String("hook_event", c.p.Event))}
}

func toolEvent(c *call) (string, []entry) {
	return EvToolEvent, []entry{debug(EvToolEvent, slog.String("hook_event", c.p.Event), slog.String("tool_name", c.p.ToolName))}
}

func modelRequest(c *call) (string, []entry) {
	p := c.p
	attrs := []slog.Attr{slog.String("hook_event", p.Event), slog.String("kind", p.Kind)}
	if p.Status != "" {
		attrs = append(attrs, slog.String("status", p.Status))
	}
	if v := gjsonInt(p.Raw, "token_usage.input_tokens"); v > 0 {
		attrs = append(attrs, slog.Int64("input_tokens", v), slog.Int64("cached_input_tokens", gjsonInt(p.Raw, "token_usage.cached_input_tokens")))
	}
	return EvModelRequest, []entry{debug(EvModelRequest, attrs...)}
}

// usageRetries and usageRetryWait bound how long a Stop hook waits for a
// transcript that does not yet hold the turn's usage: Claude writes the
// transcript asynchronously and, on a busy machine, can run the Stop hook
// before the assistant record is on disk. At most ~300 ms, only then.
const (
	usageRetries   = 4
	usageRetryWait = 75 * time.Millisecond
)

var errNoTranscript = errors.New("payload has no transcript_path")

// readUsage reads the transcript tail: the call's one transcript read.
// An agent whose payloads carry the usage (agent.HookUsager) is not read.
func (c *call) readUsage() (agent.Usage, error) {
	if h, ok := c.agent.(agent.HookUsager); ok {
		if u, ok := h.HookUsage(c.p.Raw); ok {
			return u, nil
		}
	}
	path := c.p.TranscriptPath
	if path == "" {
		return agent.Usage{}, errNoTranscript
	}
	return c.agent.Usage(c.env.Open, path, c.env.Tail)
}

// updateUsage reads the usage after a turn (waiting briefly at Stop for a
// transcript not yet written) and applies it to the state.
func (c *call) updateUsage() []slog.Attr {
	u, err := c.readUsage()
	for i := 0; err == nil && !u.Found && !u.Compacted && c.p.Event == "Stop" && c.p.TranscriptPath != "" && i < usageRetries; i++ {
		time.Sleep(usageRetryWait)
		u, err = c.readUsage()
	}
	return afterTurn(&c.st, c.env.Windows, u, err)
}

// forgetUsage marks the context in use unknown.
func forgetUsage(st *state.Session) { st.Tokens, st.Percent, st.UsageKnown = 0, 0, false }

// afterTurn applies the usage read after a turn.
func afterTurn(st *state.Session, w agent.Windows, u agent.Usage, err error) []slog.Attr {
	if err != nil {
		return []slog.Attr{slog.String("usage_error", err.Error())}
	}
	if !u.Found {
		attrs := []slog.Attr{slog.Bool("usage_found", false)}
		if u.BytesRead > 0 || u.Size > 0 {
			// Not when the payload reported (no) usage: nothing was read.
			attrs = append(attrs, slog.Int64("bytes_read", u.BytesRead))
		}
		if u.Compacted {
			forgetUsage(st)
			attrs = append(attrs, slog.Bool("after_compaction", true))
		}
		return attrs
	}
	return applyUsage(st, w, u)
}

// afterCompaction applies the transcript read right after a compaction.
// Claude Code fires PostCompact before it has always written the compact
// boundary: usage found before any boundary is the pre-compaction turn's,
// so the context after it is unknown until the boundary (its metadata has
// preTokens and postTokens) or the next turn is in the file.
func afterCompaction(st *state.Session, w agent.Windows, u agent.Usage, err error) []slog.Attr {
	switch {
	case err != nil:
		return []slog.Attr{slog.String("usage_error", err.Error())}
	case u.Compacted && u.PostTokens > 0:
		attrs := []slog.Attr{}
		if u.PreTokens > 0 {
			attrs = append(attrs, slog.Int64("compact_pre_tokens", u.PreTokens))
		}
		u.Found, u.Tokens = true, u.PostTokens
		applyUsage(st, w, u)
		st.CompactPending = false
		return append(attrs, slog.Int64("tokens_after", u.PostTokens), slog.Int64("window", st.Window), slog.Float64("pct", st.Percent))
	case u.Compacted:
		// Context usage restarts at the boundary; the next turn tells.
		st.CompactPending = true
		forgetUsage(st)
		return []slog.Attr{slog.Bool("tokens_after_known", false)}
	case u.Found:
		// Either the boundary is not written yet or it is further back
		// than the tail: unknown either way, until the next turn.
		st.CompactPending = true
		forgetUsage(st)
		return []slog.Attr{slog.Bool("tokens_after_known", false), slog.Bool("boundary_pending", true)}
	}
	forgetUsage(st)
	return []slog.Attr{slog.Bool("tokens_after_known", false)}
}

// applyUsage stores a usage and the window of the session's model.
func applyUsage(st *state.Session, w agent.Windows, u agent.Usage) []slog.Attr {
	if u.Model != "" {
		st.Model = u.Model
	}
	st.Window, st.WindowSource = w.For(st.Model, st.ReportedWindow, u.Window)
	st.Tokens, st.UsageKnown = u.Tokens, true
	st.Percent = agent.Percent(st.Tokens, st.Window)
	attrs := []slog.Attr{
		slog.Int64("tokens", u.Tokens), slog.Int64("window", st.Window), slog.Float64("pct", st.Percent),
		slog.String("window_source", st.WindowSource), slog.String("model", st.Model),
	}
	if u.Size == 0 && u.BytesRead == 0 {
		// The payload reported the usage (agent.HookUsager): no
		// transcript was read.
		return attrs
	}
	return append(attrs, slog.Int64("transcript_bytes", u.Size), slog.Int64("bytes_read", u.BytesRead))
}

// selfReport compares the model's own "[ctx: ~NN%]" with the usage.
func selfReport(st state.Session, p Payload) entry {
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
	return info(EvContextUsage, attrs...)
}

func hasAttr(attrs []slog.Attr, key string) bool {
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

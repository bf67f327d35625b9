package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
)

// Env is what Handle needs from its process.
type Env struct {
	StateDir string
	// Agents are the agents a payload may come from, each bound to its
	// data root.
	Agents agent.Registry
	Getenv func(string) string
	Now    func() time.Time
	// Log is the lifecycle log; Handle names the harness and identity
	// root on every record it writes.
	Log *eventlog.Log
	// Harness forces the agent by name (claude-code, codex); "" detects
	// it from the payload.
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
	State   state.Session
	Saved   bool
	// SystemMessage is what a SessionStart hook shows the user inside the
	// agent's screen (Claude Code's hook output "systemMessage"): a notice
	// the wrapper left for this session. "" when there is none.
	SystemMessage string
}

// Lifecycle log event names (the list and their fields are in eventlog).
const (
	EvSpawn          = eventlog.SessionSpawn
	EvResume         = eventlog.SessionResume
	EvFork           = eventlog.SessionFork
	EvClear          = eventlog.SessionClear
	EvCompacted      = eventlog.SessionCompacted
	EvSessionStart   = eventlog.SessionStart
	EvTurnEnd        = eventlog.TurnEnd
	EvTurnFailure    = eventlog.TurnFailure
	EvTurnInterrupt  = eventlog.TurnInterrupt
	EvCompactStart   = eventlog.CompactStart
	EvCompactEnd     = eventlog.CompactEnd
	EvSessionEnd     = eventlog.SessionEnd
	EvSubagentStart  = eventlog.SubagentStart
	EvSubagentStop   = eventlog.SubagentStop
	EvPathNormalized = eventlog.PathNormalized
	EvContextUsage   = eventlog.ContextUsage
	EvToolEvent      = eventlog.ToolEvent
	EvPromptSubmit   = eventlog.PromptSubmit
	EvNotification   = eventlog.Notification
	EvModelRequest   = eventlog.ModelRequest
	EvUnknownEvent   = eventlog.HookUnknownEvent
	EvHookError      = eventlog.HookError
)

// Handle records one hook event: it logs it, and for the events that
// change what is known about the session (start, turn end, compaction,
// end) updates the session's state. Tool and prompt events cost one small
// state read and a log line.
//
// The work is split three ways: begin loads the state and applies what
// every payload says (I/O in), the event's handler from the events table
// computes the new state and the log entries (reading the transcript
// only through the call's usage readers), and finish writes the entries
// and the state (I/O out).
func Handle(env Env, p Payload) (Result, error) {
	c, err := begin(env, p)
	if err != nil {
		return c.res, err
	}
	h, lifecycle := events[p.Event]
	if !lifecycle {
		h = hotEvent
	}
	event, entries := h(c)
	c.res.Event = event
	if lifecycle {
		c.st.LastEvent, c.dirty = p.Event, true
	}
	return c.finish(entries)
}

// call is one hook invocation in progress.
type call struct {
	env   Env
	p     Payload
	agent agent.Agent // the agent the payload came from
	st    state.Session
	fresh bool // no state file existed
	dirty bool // st differs from the file
	now   time.Time
	res   Result
	log   *eventlog.Log
	pre   []entry // entries logged before the event's own
}

// entry is one lifecycle log record to write.
type entry struct {
	level slog.Level
	event string
	attrs []slog.Attr
}

func info(event string, attrs ...slog.Attr) entry { return entry{slog.LevelInfo, event, attrs} }
func warn(event string, attrs ...slog.Attr) entry { return entry{slog.LevelWarn, event, attrs} }
func debug(event string, attrs ...slog.Attr) entry {
	return entry{slog.LevelDebug, event, attrs}
}

// begin resolves the harness, loads the session's state and applies what
// every payload carries (identity root, cwd, model, transcript path).
func begin(env Env, p Payload) (*call, error) {
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	c := &call{env: env, p: p, res: Result{Harness: env.Harness}, agent: agentOf(env, p)}
	if c.res.Harness == "" && c.agent != nil {
		c.res.Harness = c.agent.Name()
	}
	if p.SessionID == "" {
		env.Log.With(c.res.Harness, "").Warn(EvHookError, "", slog.String("hook_event", p.Event), slog.String("error", "payload has no session_id"))
		return c, errors.New("payload has no session_id")
	}
	if c.agent == nil {
		err := fmt.Errorf("no agent %q among %q", c.res.Harness, env.Agents.Names())
		env.Log.With(c.res.Harness, "").Warn(EvHookError, p.SessionID, slog.String("hook_event", p.Event), slog.String("error", err.Error()))
		return c, err
	}
	if p.TranscriptPath == "" {
		// A payload that names no transcript (Codex's legacy notify).
		c.p.TranscriptPath = c.agent.HookTranscript(p.SessionID)
	}
	c.now = env.Now()
	st, loadErr := state.LoadSession(env.StateDir, p.SessionID)
	c.fresh = loadErr != nil
	if loadErr != nil && !errors.Is(loadErr, fs.ErrNotExist) {
		// A corrupt state file is replaced, not trusted.
		env.Log.With(c.res.Harness, "").Warn(EvHookError, p.SessionID, slog.String("error", loadErr.Error()))
	}
	c.st, c.dirty = st, c.fresh
	if c.fresh {
		c.st = state.Session{SessionID: p.SessionID, Harness: c.res.Harness, Started: c.now}
	}
	c.applyPayload(c.pinnedRoot())
	c.log = env.Log.With(c.res.Harness, c.res.Root)
	return c, nil
}

// agentOf is the agent a payload came from: the one env.Harness names,
// else the one it is detected as (nil when the registry has none).
func agentOf(env Env, p Payload) agent.Agent {
	if env.Harness != "" {
		return env.Agents.Get(env.Harness)
	}
	return DetectAgent(env.Agents, p, env.Getenv)
}

// pinnedRoot is the identity root: the wrapper's, else the one pinned at
// the session's first event, never moved by a later cwd.
func (c *call) pinnedRoot() string {
	root := c.st.IdentityRoot
	pin := c.env.Getenv(identity.EnvRoot)
	// Checked only when set: checking "" built an error (fmt) that every
	// event threw away.
	if pin != "" {
		err := identity.CheckPinned(pin)
		if err == nil {
			return pin
		}
		c.pre = append(c.pre, warn(EvHookError, slog.String("error", "ignored: "+err.Error())))
	}
	if root == "" {
		base := c.p.Cwd
		if d := c.agent.HookProjectDir(c.env.Getenv); d != "" {
			base = d
		}
		if base != "" {
			root = identity.Resolve(base).Path
		}
	}
	return root
}

// applyPayload records what every payload says about the session.
func (c *call) applyPayload(root string) {
	st, p := &c.st, c.p
	set := func(dst *string, v string) {
		if *dst != v {
			*dst, c.dirty = v, true
		}
	}
	set(&st.Harness, c.res.Harness)
	set(&st.IdentityRoot, root)
	c.res.Root = root
	if p.Cwd != "" && p.Cwd != st.Cwd {
		if p.Cwd != root {
			c.pre = append(c.pre, info(EvPathNormalized, slog.String("cwd", p.Cwd),
				slog.String("normalized", identity.Resolve(p.Cwd).Path), slog.String("hook_event", p.Event)))
		}
		set(&st.Cwd, p.Cwd)
	}
	if p.Model != "" && p.AgentID == "" {
		set(&st.Model, p.Model)
	}
	if p.TranscriptPath != "" && p.AgentID == "" {
		set(&st.TranscriptPath, p.TranscriptPath)
	}
}

// finish writes the log entries and, when it changed, the state.
func (c *call) finish(entries []entry) (Result, error) {
	for _, e := range append(c.pre, entries...) {
		c.log.Emit(e.level, e.event, c.p.SessionID, e.attrs...)
	}
	if c.dirty {
		c.st.Updated = c.now
		if err := state.Save(c.env.StateDir, c.st); err != nil {
			c.res.State = c.st
			return c.res, err
		}
		c.res.Saved = true
	}
	c.res.State = c.st
	return c.res, nil
}

// SelfReported returns the percentage of the last "[ctx: ~NN%]" in text:
// the last match of \[ctx:\s*~?\s*(\d{1,3}(?:\.\d+)?)\s*%\s*\], read by
// hand. With regexp reachable, tether-hot's start paid for the Unicode
// tables regexp/syntax refers to (unicode's map initialisers).
func SelfReported(text string) (float64, bool) {
	for end := len(text); ; {
		i := strings.LastIndex(text[:end], "[ctx:")
		if i < 0 {
			return 0, false
		}
		if num, ok := selfReportAt(text[i+len("[ctx:"):]); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v > 100 {
				return 0, false
			}
			return v, true
		}
		end = i
	}
}

// selfReportAt matches \s*~?\s*(\d{1,3}(?:\.\d+)?)\s*%\s*\] at the start
// of s and returns the number. The match is unambiguous (no part can
// take another's bytes), so one greedy pass decides it, as RE2 would.
func selfReportAt(s string) (num string, ok bool) {
	s = trimRESpace(s)
	s = strings.TrimPrefix(s, "~")
	s = trimRESpace(s)
	n := 0
	for n < len(s) && n < 3 && isDigit(s[n]) {
		n++
	}
	if n == 0 {
		return "", false
	}
	if n < len(s) && s[n] == '.' && n+1 < len(s) && isDigit(s[n+1]) {
		n += 2
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	num, s = s[:n], trimRESpace(s[n:])
	if !strings.HasPrefix(s, "%") {
		return "", false
	}
	if s = trimRESpace(s[1:]); !strings.HasPrefix(s, "]") {
		return "", false
	}
	return num, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// trimRESpace trims what RE2's \s matches: tab, newline, form feed,
// carriage return and space.
func trimRESpace(s string) string {
	return strings.TrimLeft(s, "\t\n\f\r ")
}

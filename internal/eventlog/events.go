package eventlog

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// Lifecycle event names. Every record tether writes uses one of these;
// Events says who writes each and which fields it carries.
const (
	// The hook (tether hook), one per agent event.
	SessionSpawn     = "session_spawn"
	SessionResume    = "session_resume"
	SessionFork      = "session_fork"
	SessionClear     = "session_clear"
	SessionCompacted = "session_compacted"
	SessionStart     = "session_start"
	TurnEnd          = "turn_end"
	TurnFailure      = "turn_failure"
	TurnInterrupt    = "turn_interrupt"
	CompactStart     = "compact_start"
	CompactEnd       = "compact_end"
	SessionEnd       = "session_end"
	SubagentStart    = "subagent_start"
	SubagentStop     = "subagent_stop"
	PathNormalized   = "path_normalized"
	ContextUsage     = "context_usage"
	ToolEvent        = "tool_event"
	PromptSubmit     = "prompt_submit"
	Notification     = "notification"
	ModelRequest     = "model_request"
	HookUnknownEvent = "hook_unknown_event"
	HookError        = "hook_error"

	// The wrapper (tether run, the shims).
	Spawn           = "spawn"
	End             = "end"
	ResumeCwdRepair = "resume_cwd_repair"
	ResumeRefused   = "resume_refused"
	ResumeFailure   = "resume_failure"
	FreshFallback   = "fresh_fallback"
	ResumeRetry     = "resume_retry"
	ResumeFork      = "resume_fork"
	OutputWithheld  = "output_withheld"

	// Trims, automatic (the wrapper) and manual (tether trim).
	Trim        = "trim"
	TrimFailed  = "trim_failed"
	TrimSkipped = "trim_skipped"
	TrimRestore = "trim_restore"
	TrimReset   = "trim_reset"

	// Other commands.
	Resume             = "resume"
	IdentityFallback   = "identity_fallback"
	IdentityPinIgnored = "identity_pin_ignored"

	// The archive.
	Archive              = "archive"
	ArchiveError         = "archive_error"
	ArchiveRestore       = "archive_restore"
	ArchiveRestoreFailed = "archive_restore_failed"
	ArchiveExportStart   = "archive_export_start"
	ArchiveExportFailed  = "archive_export_failed"
)

// Event describes one lifecycle event: who writes it and the fields it may
// carry besides the standard ones (time, level, event, session_id,
// harness, identity_root).
type Event struct {
	Name   string
	Writer string
	Fields []string
}

// Events is every lifecycle event, in the order docs/lifecycle-log.md lists them.
// Built on first use: as a package-level slice its initialiser ran at the
// start of every hook, which never reads it.
var Events = sync.OnceValue(func() []Event {
	return []Event{
		{SessionSpawn, "hook: SessionStart `startup`", []string{"source", "cwd", "model", "normalized_cwd", "reported_context_tokens"}},
		{SessionResume, "hook: SessionStart `resume`", fields([]string{"source", "cwd", "model", "transcript_path", "transcript_bytes", "reported_context_tokens"}, usageFields)},
		{SessionFork, "hook: SessionStart `fork`", []string{"source", "cwd", "model", "reported_context_tokens"}},
		{SessionClear, "hook: SessionStart `clear`", []string{"source", "cwd", "model", "reported_context_tokens"}},
		{SessionCompacted, "hook: SessionStart `compact`", fields([]string{"source", "cwd", "model", "reported_context_tokens"}, compactionFields)},
		{SessionStart, "hook: SessionStart, other source", []string{"source", "cwd", "model", "reported_context_tokens"}},
		{TurnEnd, "hook: Stop", fields([]string{"first_after_compaction"}, usageFields)},
		{TurnFailure, "hook: StopFailure, or SessionEnd after an API error", []string{"error", "prompt_too_long", "agent_id", "detected_at"}},
		{TurnInterrupt, "hook: Interrupt (Codex, OpenCode)", []string{"turn_id"}},
		{CompactStart, "hook: PreCompact", []string{"trigger", "tokens_before"}},
		{CompactEnd, "hook: PostCompact", fields([]string{"trigger", "tokens_before"}, compactionFields)},
		{SessionEnd, "hook: SessionEnd", []string{"reason", "duration_ms", "tokens", "pct"}},
		{SubagentStart, "hook: SubagentStart", []string{"agent_id", "agent_type"}},
		{SubagentStop, "hook: SubagentStop, a Codex subagent's Stop", []string{"agent_id", "agent_type", "agent_transcript_path"}},
		{PathNormalized, "hook: a `cwd` other than the identity root", []string{"cwd", "normalized", "hook_event"}},
		{ContextUsage, "hook: Stop with self-report on", []string{"sdk_pct", "tokens", "window", "self_reported_pct", "drift_pct", "self_report_missing"}},
		{ToolEvent, "hook: tool events (debug)", []string{"hook_event", "tool_name"}},
		{PromptSubmit, "hook: UserPromptSubmit (debug)", []string{"prompt_chars"}},
		{Notification, "hook: Notification (debug)", []string{"notification_type"}},
		{ModelRequest, "hook: Pre/PostModelRequest (debug)", []string{"hook_event", "kind", "status", "input_tokens", "cached_input_tokens"}},
		{HookUnknownEvent, "hook: an event it does not know (debug)", []string{"hook_event"}},
		{HookError, "hook: its own errors", []string{"hook_event", "error", "using"}},
		{Spawn, "wrapper: before starting the agent", []string{"cwd", "resume", "fork", "print", "bin"}},
		{End, "wrapper: the agent exited", []string{"exit_code"}},
		{ResumeCwdRepair, "wrapper: a session filed under another spelling of its directory", []string{"from", "to", "transcript"}},
		{ResumeRefused, "wrapper: the session runs elsewhere", []string{"reason"}},
		{ResumeFailure, "wrapper: a resume failed or cannot work", []string{"reason", "exit_code", "cwd", "transcript", "size", "next"}},
		{ResumeRetry, "wrapper: resumed once more after trimming a session the API refused as too long", []string{"exit_code"}},
		{ResumeFork, "wrapper: an OpenCode session whose own compaction failed, its last turns forked into a new session to resume once more", []string{"new_session_id", "turns", "of", "messages", "dropped"}},
		{OutputWithheld, "wrapper: a failed attempt's `-p` json output, dropped (kind only, never text)", []string{"bytes", "type", "subtype", "is_error"}},
		{FreshFallback, "wrapper: started fresh instead", []string{"new_session_id", "reason", "exit_code", "handoff"}},
		{Trim, "`tether trim` (`source=manual`), the wrapper over its threshold (`source=auto`) or after the API refused a resume as too long (`source=retry`)", TrimFields},
		{TrimFailed, "a trim that failed (either source)", TrimFailedFields},
		{TrimSkipped, "wrapper: over its threshold with `TETHER_DISABLE_TRIM`, or while the session may be running", []string{"source", "reason", "percent", "pid"}},
		{TrimRestore, "`tether trim --restore`", []string{"path"}},
		{TrimReset, "`tether trim --reset`", []string{"root"}},
		{Resume, "`tether sessions resume`", []string{"cwd", "mode", "forced"}},
		{IdentityFallback, "any command whose identity root fell back (debug)", []string{"raw", "reason"}},
		{Archive, "hooks: a transcript linked into the archive at SessionStart/SessionEnd (debug)", []string{"action"}},
		{ArchiveError, "archiving that failed during a listing or a hook (debug)", []string{"failed", "error"}},
		{ArchiveRestore, "`tether sessions resume`, `archive restore` or the wrapper put a transcript back from the archive", []string{"path", "compressed"}},
		{ArchiveRestoreFailed, "wrapper: a transcript could not be put back from the archive", []string{"error", "exists"}},
		{ArchiveExportStart, "hooks: an OpenCode session ended a turn or ended; its export into the archive (`tether archive sync --session`) started in the background, at most every 10 minutes a session", []string{"pid"}},
		{ArchiveExportFailed, "hooks: that background export could not be started", []string{"kind", "error"}},
		{IdentityPinIgnored, "any command given an unusable `TETHER_IDENTITY_ROOT`", []string{"reason", "root"}},
	}
})

// usageFields are what a hook reports of the context in use after reading
// a transcript's tail; compactionFields what it reports after a
// compaction.
var (
	usageFields = []string{"tokens", "window", "pct", "window_source", "model", "transcript_bytes", "bytes_read",
		"usage_found", "after_compaction", "usage_error"}
	compactionFields = []string{"compact_pre_tokens", "tokens_after", "window", "pct", "tokens_after_known",
		"boundary_pending", "usage_error"}
)

// fields joins field lists, each field once, in order.
func fields(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, f := range l {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// Lookup returns the description of the named event.
func Lookup(name string) (Event, bool) {
	i := slices.IndexFunc(Events(), func(e Event) bool { return e.Name == name })
	if i < 0 {
		return Event{}, false
	}
	return Events()[i], true
}

// Sources of a trim.
const (
	SourceManual = "manual"
	SourceAuto   = "auto"
	// SourceRetry is the wrapper's trim after the API refused a resume
	// as too long.
	SourceRetry = "retry"
)

// TrimFields and TrimFailedFields are the one field set of a trim and of
// a failed trim, whatever started it.
var (
	TrimFields = []string{"source", "path", "policy", "changed", "percent", "bytes_before", "bytes_after",
		"records_before", "records_after", "tokens_before", "tokens_after", "backup"}
	TrimFailedFields = []string{"source", "path", "percent", "error"}
)

// TrimDone is what one trim did. Percent is the context use that set off
// an automatic trim (0 for a manual one).
type TrimDone struct {
	Source, Path, Policy, Backup string
	Changed                      bool
	Percent                      float64
	BytesBefore, BytesAfter      int64
	RecordsBefore, RecordsAfter  int
	TokensBefore, TokensAfter    int64
}

// Attrs are the trim event's fields, in TrimFields order.
func (t TrimDone) Attrs() []slog.Attr {
	return []slog.Attr{
		slog.String("source", t.Source), slog.String("path", t.Path), slog.String("policy", t.Policy),
		slog.Bool("changed", t.Changed), slog.Float64("percent", t.Percent),
		slog.Int64("bytes_before", t.BytesBefore), slog.Int64("bytes_after", t.BytesAfter),
		slog.Int("records_before", t.RecordsBefore), slog.Int("records_after", t.RecordsAfter),
		slog.Int64("tokens_before", t.TokensBefore), slog.Int64("tokens_after", t.TokensAfter),
		slog.String("backup", t.Backup),
	}
}

// TrimFailedAttrs are the trim_failed event's fields, in TrimFailedFields
// order.
func TrimFailedAttrs(source, path string, percent float64, err error) []slog.Attr {
	return []slog.Attr{slog.String("source", source), slog.String("path", path),
		slog.Float64("percent", percent), slog.String("error", err.Error())}
}

// Check reports a record whose event is not in Events or that carries a
// field its event does not list.
func Check(r Record) error {
	e, ok := Lookup(r.Event)
	if !ok {
		return fmt.Errorf("unknown lifecycle event %q", r.Event)
	}
	var err error
	r.Fields(func(key string, _ gjson.Result) {
		if err == nil && !slices.Contains(e.Fields, key) {
			err = fmt.Errorf("event %s: field %q is not in its list", r.Event, key)
		}
	})
	return err
}

// EventTable is docs/lifecycle-log.md's table of Events, in Markdown.
func EventTable() string {
	var b strings.Builder
	b.WriteString("| event | written by | fields |\n| --- | --- | --- |\n")
	for _, e := range Events() {
		fs := make([]string, len(e.Fields))
		for i, f := range e.Fields {
			fs[i] = "`" + f + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.Name, e.Writer, strings.Join(fs, ", "))
	}
	return b.String()
}

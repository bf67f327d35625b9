package opencode

import (
	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// OpenCode has no hook settings: its events reach plugins (JS modules).
// tether's plugin (plugin.js) turns them into hook payloads of tether's
// own: hook_event_name (SessionStart, Stop, StopFailure, PreCompact,
// PostCompact, Interrupt, SubagentStart/Stop, SessionEnd), session_id,
// cwd, and opencode_event, the OpenCode event it stands for, which only
// that plugin sends. A Stop carries the context in use (tokens: the last
// assistant message's total, as OpenCode counts it), the model and its
// context limit (context_window): there is no transcript to read them
// from, and tether-hot reads no database.

// Payload fields only tether's OpenCode plugin sends.
const (
	FieldEvent  = "opencode_event"
	FieldTokens = "tokens"
	FieldWindow = "context_window"
)

// ContextOverflow is the error OpenCode reports when the provider refused
// the history as too long (it maps the providers' messages to it).
const ContextOverflow = "ContextOverflowError"

var _ agent.HookUsager = (*Agent)(nil)

// MatchHook implements agent.Hooks: opencode_event is sent by tether's
// plugin alone.
func (*Agent) MatchHook(in agent.HookInput) agent.HookMatch {
	if gjson.GetBytes(in.Raw, FieldEvent).Exists() {
		return agent.HookSure
	}
	return agent.HookNo
}

// HookUsage implements agent.HookUsager: the plugin's Stop names the
// tokens (none when no assistant message had any), a PostCompact none
// (the context after a compaction is known at the next turn).
func (*Agent) HookUsage(raw []byte) (agent.Usage, bool) {
	r := gjson.ParseBytes(raw)
	if !r.Get(FieldEvent).Exists() {
		return agent.Usage{}, false
	}
	u := agent.Usage{Model: r.Get("model").String(), Window: r.Get(FieldWindow).Int()}
	if r.Get("hook_event_name").String() == "PostCompact" {
		u.Compacted = true
		return u, true
	}
	if t := r.Get(FieldTokens).Int(); t > 0 {
		u.Found, u.Tokens = true, t
	}
	return u, true
}

// HookArgs implements agent.PluginInstaller.
func (*Agent) HookArgs() string { return "hook --harness " + agent.OpenCode }

// NotifyTurn implements agent.Hooks: OpenCode has no notify program.
func (*Agent) NotifyTurn([]byte) (agent.NotifyTurn, bool) { return agent.NotifyTurn{}, false }

// HookTranscript implements agent.Hooks: no session has a transcript
// file.
func (*Agent) HookTranscript(string) string { return "" }

// HookProjectDir implements agent.Hooks: the plugin's cwd is the
// session's directory already.
func (*Agent) HookProjectDir(func(string) string) string { return "" }

// PromptTooLong implements agent.Hooks: the plugin sends the error's
// name only (its message may quote the provider's answer).
func (*Agent) PromptTooLong(errType, _ string) bool { return errType == ContextOverflow }

// LastAPIError implements agent.Hooks: OpenCode records its errors in the
// database, which is not read here; the plugin reports them as they
// happen (StopFailure).
func (*Agent) LastAPIError(jsonl.Opener, string) (string, bool, bool) { return "", false, false }

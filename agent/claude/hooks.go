package claude

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// MatchHook implements agent.Hooks. Claude Code puts its session id in
// every hook's environment (but a Codex run inside a Claude session
// inherits it), keeps its transcripts under projects/, and its payloads
// carry prompt_id or effort: all only likely, since none is a field only
// Claude Code sends.
func (*Agent) MatchHook(in agent.HookInput) agent.HookMatch {
	switch {
	case in.Getenv != nil && in.Getenv("CLAUDE_CODE_SESSION_ID") != "":
		return agent.HookLikely
	case strings.Contains(in.Transcript, "/projects/"):
		return agent.HookLikely
	}
	r := gjson.ParseBytes(in.Raw)
	if r.Get("prompt_id").Exists() || r.Get("effort").Exists() {
		return agent.HookLikely
	}
	return agent.HookNo
}

// NotifyTurn implements agent.Hooks: Claude Code has no notify program.
func (*Agent) NotifyTurn([]byte) (agent.NotifyTurn, bool) { return agent.NotifyTurn{}, false }

// HookTranscript implements agent.Hooks: every payload names its
// transcript.
func (*Agent) HookTranscript(string) string { return "" }

// HookProjectDir implements agent.Hooks: CLAUDE_PROJECT_DIR, the
// directory Claude Code was started in.
func (*Agent) HookProjectDir(getenv func(string) string) string { return getenv("CLAUDE_PROJECT_DIR") }

// PromptTooLong implements agent.Hooks (StopFailure's error and
// error_details).
func (*Agent) PromptTooLong(errType, details string) bool { return IsPromptTooLong(errType, details) }

// LastAPIError implements agent.Hooks.
func (*Agent) LastAPIError(open jsonl.Opener, path string) (string, bool, bool) {
	return LastAPIError(open, path)
}

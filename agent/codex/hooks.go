package codex

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// MatchHook implements agent.Hooks. Only Codex sends its legacy notify
// payload, thread_id (model-request events), model_provider (some
// builds), or a rollout as transcript_path (under
// …/sessions/YYYY/MM/DD/, or anywhere under $CODEX_HOME); turn_id (turn
// events) is Codex's too, but is a name another agent could use.
func (a *Agent) MatchHook(in agent.HookInput) agent.HookMatch {
	r := gjson.ParseBytes(in.Raw)
	switch {
	case r.Get("type").String() == NotifyTurnComplete:
		return agent.HookSure
	case r.Get("thread_id").Exists(), r.Get("model_provider").Exists():
		return agent.HookSure
	case IsRolloutPath(in.Transcript):
		return agent.HookSure
	case a.home != "" && in.Transcript != "" && strings.HasPrefix(in.Transcript, strings.TrimSuffix(a.home, "/")+"/"):
		return agent.HookSure
	case in.TurnID != "":
		return agent.HookWeak
	}
	return agent.HookNo
}

// NotifyTurn implements agent.Hooks: the legacy notify program gets
// {"type":"agent-turn-complete", "thread-id", "turn-id", "cwd", …} as its
// last argument.
func (*Agent) NotifyTurn(raw []byte) (agent.NotifyTurn, bool) {
	r := gjson.ParseBytes(raw)
	if r.Get("type").String() != NotifyTurnComplete {
		return agent.NotifyTurn{}, false
	}
	return agent.NotifyTurn{SessionID: r.Get(NotifyThreadID).String(), TurnID: r.Get(NotifyTurnID).String(),
		LastAssistant: r.Get("last-assistant-message").String()}, true
}

// HookTranscript implements agent.Hooks: the legacy notify sends no
// rollout path; the live rollout of the thread is looked up.
func (a *Agent) HookTranscript(id string) string {
	if a.home == "" {
		return ""
	}
	return FindRollout(a.home, id, false)
}

// HookProjectDir implements agent.Hooks: Codex's hooks name none.
func (*Agent) HookProjectDir(func(string) string) string { return "" }

// PromptTooLong implements agent.Hooks: Codex reports no turn failure
// to hooks (its overflowed context is in the rollout: ContextExceeded).
func (*Agent) PromptTooLong(string, string) bool { return false }

// LastAPIError implements agent.Hooks: Codex records no API error a
// session end should report.
func (*Agent) LastAPIError(jsonl.Opener, string) (string, bool, bool) { return "", false, false }

package agent

import (
	"github.com/tether-dev/tether/agent/jsonl"
)

// Hooks is what tether's hook command needs of an agent beyond the fields
// every agent's hook payload shares (hook_event_name, session_id,
// transcript_path, cwd, model, …), which hooks/ reads itself.
type Hooks interface {
	// MatchHook says how surely a hook's payload came from this agent.
	MatchHook(in HookInput) HookMatch
	// NotifyTurn reads a payload of the agent's notify program, which is
	// not a hook's (Codex's legacy notify): a turn that ended. ok is
	// false when raw is not one.
	NotifyTurn(raw []byte) (n NotifyTurn, ok bool)
	// HookTranscript is the transcript of session id for a payload that
	// names none ("" when the agent's payloads always do, or it is not
	// found).
	HookTranscript(id string) string
	// HookProjectDir is the project directory the hook's environment
	// names, which the identity root is resolved from before the
	// payload's cwd ("" when it names none).
	HookProjectDir(getenv func(string) string) string
	// PromptTooLong reports whether an error a hook reported (its type
	// and details) is the API refusing the history as too long.
	PromptTooLong(errType, details string) bool
	// LastAPIError reads the end of the transcript at path: whether the
	// last turn ended in an API error the agent recorded there, which and
	// whether it was prompt too long (ok false: none, or the agent
	// records none).
	LastAPIError(open jsonl.Opener, path string) (errType string, tooLong, ok bool)
}

// HookMatch is how surely a hook's payload came from an agent. The agent
// with the surest match handles it; on a tie (or no match at all) the
// first in the Registry does.
type HookMatch int

// The degrees of a match, weakest first.
const (
	HookNo HookMatch = iota
	// HookWeak: a field this agent sends that another agent's payloads
	// might carry too.
	HookWeak
	// HookLikely: the payload or the environment points at this agent,
	// but would look the same for another agent run inside it (which
	// inherits its environment).
	HookLikely
	// HookSure: a field only this agent sends.
	HookSure
)

// HookInput is a hook's payload as the agents are asked whose it is.
type HookInput struct {
	Raw []byte
	// Transcript and TurnID are the payload's transcript_path and
	// turn_id, read already.
	Transcript, TurnID string
	// Getenv is the hook's environment.
	Getenv func(string) string
}

// NotifyTurn is what a notify payload says of the turn that ended.
type NotifyTurn struct {
	SessionID, TurnID, LastAssistant string
}

// MatchHook is the agent of r with the surest match for a hook's payload
// (see Hooks.MatchHook): the first one when none matches at all; nil
// only for an empty registry.
func (r Registry) MatchHook(in HookInput) Agent {
	var best Agent
	bestMatch := HookNo
	for _, a := range r {
		m := a.MatchHook(in)
		if m == HookSure {
			return a
		}
		if best == nil || m > bestMatch {
			best, bestMatch = a, m
		}
	}
	return best
}

// HookUsager is an agent whose hook payloads carry the context usage
// themselves, because it keeps no transcript a hook could read the usage
// from (OpenCode: its plugin remembers the last assistant message's
// tokens and the model's context limit and sends them).
type HookUsager interface {
	// HookUsage is the usage a payload reports; ok is false when raw is
	// not such a payload (the transcript is read as for any agent).
	HookUsage(raw []byte) (u Usage, ok bool)
}

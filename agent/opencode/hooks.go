package opencode

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// OpenCode has no hook settings: its events reach plugins (JS modules),
// and tether's plugin is not built yet. So no payload is recognised as
// OpenCode's, and Agent is no agent.HookInstaller.

// MatchHook implements agent.Hooks.
func (*Agent) MatchHook(agent.HookInput) agent.HookMatch { return agent.HookNo }

// NotifyTurn implements agent.Hooks: OpenCode has no notify program.
func (*Agent) NotifyTurn([]byte) (agent.NotifyTurn, bool) { return agent.NotifyTurn{}, false }

// HookTranscript implements agent.Hooks: no session has a transcript
// file.
func (*Agent) HookTranscript(string) string { return "" }

// HookProjectDir implements agent.Hooks.
func (*Agent) HookProjectDir(func(string) string) string { return "" }

// PromptTooLong implements agent.Hooks.
func (*Agent) PromptTooLong(string, string) bool { return false }

// LastAPIError implements agent.Hooks: OpenCode records its errors in the
// database, which is not read here.
func (*Agent) LastAPIError(jsonl.Opener, string) (string, bool, bool) { return "", false, false }

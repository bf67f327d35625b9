package codex

import (
	"path/filepath"

	"github.com/tether-dev/tether/agent"
)

var _ agent.HookInstaller = (*Agent)(nil)

// HookEvents are the events tether installs for Codex.
var HookEvents = []string{"SessionStart", "Stop", "PreCompact", "PostCompact", "SubagentStart",
	"SubagentStop", "Interrupt", "SessionEnd"}

// HookTimeouts are the per-event timeouts written for Codex: it runs
// SessionEnd and Interrupt handlers with at most 1 s (and a trust record
// only matches a handler hashed with the timeout Codex uses). A function,
// not a package-level map: the map's initialiser would run at the start
// of every tether-hot process.
func HookTimeouts() map[string]int64 { return map[string]int64{"SessionEnd": 1, "Interrupt": 1} }

// HookScopes implements agent.HookInstaller: Codex keeps hooks only in
// $CODEX_HOME/hooks.json.
func (*Agent) HookScopes() []string { return []string{"user"} }

// HookSettings implements agent.HookInstaller.
func (a *Agent) HookSettings(string, string) string { return filepath.Join(a.home, "hooks.json") }

// HookEvents implements agent.HookInstaller: the same events at every
// version.
func (*Agent) HookEvents(func() string) agent.HookEvents {
	return agent.HookEvents{Events: HookEvents, All: HookEvents, Timeouts: HookTimeouts()}
}

// HookArgs implements agent.HookInstaller: the hook command names its
// harness, so the payload need not tell it.
func (*Agent) HookArgs() string { return "hook --harness codex" }

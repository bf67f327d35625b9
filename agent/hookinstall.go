package agent

// HookInstaller is an agent tether's hooks can be installed into: where
// its hook settings are and which events tether installs there. The edit
// itself (only tether's own entries touched, the file's style kept, a
// backup, the record of what was written) is the same for every agent:
// hooks/ and the command layer do it.
type HookInstaller interface {
	Agent
	// HookScopes are the scopes of its hook settings, the default first
	// (Claude Code: user, project, local).
	HookScopes() []string
	// HookSettings is the hook settings file of scope (one of
	// HookScopes); project is the project's directory, for the scopes
	// kept in it.
	HookSettings(scope, project string) string
	// HookEvents are the events tether installs for the agent; version
	// is its --version output ("" when unknown), asked only by an agent
	// whose events depend on it.
	HookEvents(version func() string) HookEvents
	// HookArgs are the arguments of tether's hook command in its settings
	// ("hook").
	HookArgs() string
}

// HookEvents are the events tether installs for an agent.
type HookEvents struct {
	// Events are the ones to install; All are every event tether installs
	// for the agent at any version.
	Events, All []string
	// Timeouts are the timeouts (seconds) of the events that need one of
	// their own.
	Timeouts map[string]int64
	// Reduced, when set, says why Events are fewer than All (the version).
	Reduced string
}

// HookInstallers are the agents of r tether's hooks can be installed
// into, in order.
func (r Registry) HookInstallers() []HookInstaller {
	var out []HookInstaller
	for _, a := range r {
		if h, ok := a.(HookInstaller); ok {
			out = append(out, h)
		}
	}
	return out
}

// PluginInstaller is an agent whose events reach tether through a plugin:
// one file tether writes into a directory the agent loads plugins from
// (OpenCode), rather than entries in a settings file the user shares
// with tether (HookInstaller). The file is tether's alone: install writes
// it whole, uninstall removes it, and it is recognised by PluginMarker
// on its first line, so a user's file of the same name is never touched.
// What it contains is the agent's; writing and removing it is the same
// for every agent: hooks/ and the command layer do it.
type PluginInstaller interface {
	Agent
	// PluginScopes are the scopes a plugin can be installed in, the
	// default first (OpenCode: user, project).
	PluginScopes() []string
	// PluginFile is the path of tether's plugin in scope (one of
	// PluginScopes); project is the project's directory, for the scopes
	// kept in it.
	PluginFile(scope, project string) string
	// Plugin is the plugin's content: its first line holds PluginMarker,
	// and it runs command (tether's hook program and its arguments) for
	// the events tether logs.
	Plugin(command []string) []byte
	// PluginCommand is the command of a plugin Plugin wrote (nil when
	// data is not one).
	PluginCommand(data []byte) []string
	// HookArgs are the arguments of tether's hook command the plugin runs
	// ("hook --harness NAME").
	HookArgs() string
}

// PluginMarker is on the first line of every plugin tether writes.
const PluginMarker = "tether:plugin"

// PluginInstallers are the agents of r tether's plugin can be installed
// into, in order.
func (r Registry) PluginInstallers() []PluginInstaller {
	var out []PluginInstaller
	for _, a := range r {
		if p, ok := a.(PluginInstaller); ok {
			out = append(out, p)
		}
	}
	return out
}

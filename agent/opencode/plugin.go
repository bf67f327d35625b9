package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"path/filepath"

	"github.com/tether-dev/tether/agent"
)

// pluginSource is tether's plugin, its command a placeholder. OpenCode
// loads every {plugin,plugins}/*.{js,ts} of its config directories and
// calls each exported function with the instance's context; the hooks it
// returns get every bus event and a few named hooks (chat.params has the
// model's limits). See plugin.js for what it sends.
//
//go:embed plugin.js
var pluginSource []byte

const (
	commandPlaceholder = "__TETHER_COMMAND__"
	commandPrefix      = "const COMMAND = "
	// PluginName is tether's plugin file in a plugins directory.
	PluginName = "tether.js"
)

var _ agent.PluginInstaller = (*Agent)(nil)

// WithConfig is a with its config directory ($XDG_CONFIG_HOME/opencode),
// where the user's plugins are.
func (a *Agent) WithConfig(dir string) *Agent {
	a.config = dir
	return a
}

// PluginScopes implements agent.PluginInstaller: the user's config
// directory, or a project's .opencode.
func (*Agent) PluginScopes() []string { return []string{"user", "project"} }

// PluginFile implements agent.PluginInstaller. OpenCode reads both
// plugin/ and plugins/; tether writes plugins/ (what its docs name).
func (a *Agent) PluginFile(scope, project string) string {
	switch scope {
	case "user":
		if a.config == "" {
			return ""
		}
		return filepath.Join(a.config, "plugins", PluginName)
	case "project":
		if project == "" {
			return ""
		}
		return filepath.Join(project, ".opencode", "plugins", PluginName)
	}
	return ""
}

// Plugin implements agent.PluginInstaller: command goes in as a JSON
// array, which is a JavaScript array literal.
func (*Agent) Plugin(command []string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(command); err != nil {
		return nil
	}
	return bytes.Replace(pluginSource, []byte(commandPlaceholder), bytes.TrimSpace(b.Bytes()), 1)
}

// PluginCommand implements agent.PluginInstaller: the COMMAND line of a
// file whose first line is tether's marker.
func (*Agent) PluginCommand(data []byte) []string {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.Contains(first, []byte(agent.PluginMarker)) {
		return nil
	}
	for line := range bytes.Lines(rest) {
		v, ok := bytes.CutPrefix(line, []byte(commandPrefix))
		if !ok {
			continue
		}
		var cmd []string
		if json.Unmarshal(bytes.TrimSpace(v), &cmd) != nil || len(cmd) == 0 {
			return nil
		}
		return cmd
	}
	return nil
}

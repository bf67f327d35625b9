package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// PluginWait says why OpenCode, started with the plugin file at path,
// may wait about 70 s before it loads any plugin ("" when it will not).
// OpenCode 1.18.33 installs @opencode-ai/plugin with npm into each config
// directory that holds plugins, at every start until that succeeded, and
// waits for it; offline npm gives up only after its retries. Its
// node_modules there, or npm set to fail at once (offline=true or
// fetch-retries=0, in the environment or the user's npmrc), mean no wait.
// home and getenv locate the npmrc as npm does.
func (*Agent) PluginWait(path, home string, getenv func(string) string) string {
	dir := filepath.Dir(filepath.Dir(path))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@opencode-ai", "plugin", "package.json")); err == nil {
		return ""
	}
	rc := getenv("NPM_CONFIG_USERCONFIG")
	if rc == "" {
		rc = getenv("npm_config_userconfig")
	}
	if rc == "" {
		rc = filepath.Join(home, ".npmrc")
	}
	if npmFailsFast(getenv, rc) {
		return ""
	}
	return fmt.Sprintf("%s has no node_modules/@opencode-ai/plugin: OpenCode installs it with npm before it loads any plugin, "+
		"at every start until that worked; without network each start waits ~70 s for npm — start OpenCode once online, "+
		"or set offline=true in %s", dir, rc)
}

// npmFailsFast reports whether npm is set to fail at once without
// network: offline, or no fetch retries.
func npmFailsFast(getenv func(string) string, rc string) bool {
	set := map[string]string{}
	if data, err := os.ReadFile(rc); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if line = strings.TrimSpace(line); !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
				continue
			}
			set[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	// npm's environment settings win over its npmrc.
	for _, k := range []string{"offline", "fetch-retries"} {
		for _, name := range []string{"npm_config_" + strings.ReplaceAll(k, "-", "_"), "NPM_CONFIG_" + strings.ToUpper(strings.ReplaceAll(k, "-", "_"))} {
			if v := getenv(name); v != "" {
				set[k] = v
			}
		}
	}
	return set["offline"] == "true" || set["fetch-retries"] == "0"
}

// Package locations says where tether and the agents it watches keep their
// files, honouring CLAUDE_CONFIG_DIR, CODEX_HOME and the XDG base
// directories.
package locations

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/puresha"
)

// Locations are the directories and files tether uses. Fields are absolute.
type Locations struct {
	Home       string
	ConfigFile string // $XDG_CONFIG_HOME/tether/config.toml
	StateDir   string // $XDG_STATE_HOME/tether
	CacheDir   string // $XDG_CACHE_HOME/tether
	DataDir    string // $XDG_DATA_HOME/tether
	ClaudeDir  string // $CLAUDE_CONFIG_DIR or ~/.claude
	CodexDir   string // $CODEX_HOME or ~/.codex
}

// EventLog is the lifecycle log.
func (l Locations) EventLog() string { return filepath.Join(l.StateDir, "events.jsonl") }

// WindowsFile remembers the context window Claude Code's statusLine last
// reported per model.
func (l Locations) WindowsFile() string { return filepath.Join(l.StateDir, "windows.json") }

// ShimsDir holds the claude and codex symlinks to tether made by
// install.sh --shims.
func (l Locations) ShimsDir() string { return filepath.Join(l.DataDir, "shims") }

// ArchiveDir is the default archive of transcripts ([archive] dir
// overrides it).
func (l Locations) ArchiveDir() string { return filepath.Join(l.DataDir, "archive") }

// ClaudeProjects is where Claude Code keeps transcripts.
func (l Locations) ClaudeProjects() string { return filepath.Join(l.ClaudeDir, "projects") }

// Bindings remembers which tmux session each agent session was last
// opened in.
func (l Locations) Bindings() string { return BindingsFile(l.StateDir) }

// The files below live under a state directory (normally
// Locations.StateDir; tests and the hook pass their own). Their names and
// places are what existing installs have on disk: do not change them.

// SessionStateFile is <stateDir>/sessions/<id>.json, one session's hook
// state. The id is made safe as a file name whatever a harness sends.
func SessionStateFile(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "sessions", SafeName(sessionID)+".json")
}

// RootIndexFile is <stateDir>/roots/<hash>.json, the latest session of an
// identity root: a hash of the root keeps the name short and free of
// separators.
func RootIndexFile(stateDir, root string) string {
	sum := puresha.Sum256([]byte(root))
	return filepath.Join(stateDir, "roots", hex.EncodeToString(sum[:12])+".json")
}

// StaleMarkerFile is <stateDir>/stale/<id>.json, a session whose resume
// failed.
func StaleMarkerFile(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "stale", filepath.Base(sessionID)+".json")
}

// ResetMarkerFile is <stateDir>/reset/<project>.json, where project is the
// identity root's Claude project directory name.
func ResetMarkerFile(stateDir, project string) string {
	return filepath.Join(stateDir, "reset", project+".json")
}

// BindingsFile is <stateDir>/bindings.json.
func BindingsFile(stateDir string) string { return filepath.Join(stateDir, "bindings.json") }

// SafeName keeps an id usable as one file name: anything but letters,
// digits, '-', '_' and '.' becomes '_', leading dots go, "" becomes "_".
func SafeName(id string) string {
	if id == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, strings.TrimLeft(id, "."))
}

// FromEnv computes the locations from an environment lookup. Relative XDG
// values are ignored, as the XDG spec requires.
func FromEnv(getenv func(string) string) Locations {
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	xdg := func(name, def string) string {
		if v := getenv(name); v != "" && filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(home, def)
	}
	orHome := func(name, def string) string {
		if v := getenv(name); v != "" {
			return filepath.Clean(v)
		}
		return filepath.Join(home, def)
	}
	configFile := filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "tether", "config.toml")
	if v := getenv("TETHER_CONFIG"); v != "" {
		configFile = v
	}
	return Locations{
		Home:       home,
		ConfigFile: configFile,
		StateDir:   filepath.Join(xdg("XDG_STATE_HOME", ".local/state"), "tether"),
		CacheDir:   filepath.Join(xdg("XDG_CACHE_HOME", ".cache"), "tether"),
		DataDir:    filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "tether"),
		ClaudeDir:  orHome("CLAUDE_CONFIG_DIR", ".claude"),
		CodexDir:   orHome("CODEX_HOME", ".codex"),
	}
}

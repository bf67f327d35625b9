// Package locations says where tether and the agents it watches keep their
// files, honouring CLAUDE_CONFIG_DIR, CODEX_HOME and the XDG base
// directories.
package locations

import (
	"os"
	"path/filepath"
)

// Locations are the directories and files tether uses. Fields are absolute.
// What is in the state directory is state's (state/files.go).
type Locations struct {
	Home       string
	ConfigFile string // $XDG_CONFIG_HOME/tether/config.toml, or $TETHER_CONFIG
	ConfigDir  string // $XDG_CONFIG_HOME/tether
	StateDir   string // $XDG_STATE_HOME/tether
	CacheDir   string // $XDG_CACHE_HOME/tether
	DataDir    string // $XDG_DATA_HOME/tether
	ClaudeDir  string // $CLAUDE_CONFIG_DIR or ~/.claude
	CodexDir   string // $CODEX_HOME or ~/.codex
	// OpenCodeDir is OpenCode's data directory, $XDG_DATA_HOME/opencode;
	// OpenCodeDB is $OPENCODE_DB when absolute ("": OpenCodeDir's
	// opencode.db). A relative OPENCODE_DB is not resolved: how OpenCode
	// resolves one was not observed.
	OpenCodeDir string
	OpenCodeDB  string
	// OpenCodeConfigDir is OpenCode's config directory
	// ($OPENCODE_CONFIG_DIR, or $XDG_CONFIG_HOME/opencode) and
	// OpenCodeConfig the extra config file $OPENCODE_CONFIG names;
	// OpenCodeCacheDir is $XDG_CACHE_HOME/opencode (models.json).
	OpenCodeConfigDir string
	OpenCodeConfig    string
	OpenCodeCacheDir  string
}

// ShimsDir holds the claude and codex symlinks to tether made by
// install.sh --shims.
func (l Locations) ShimsDir() string { return filepath.Join(l.DataDir, "shims") }

// ArchiveDir is the default archive of transcripts ([archive] dir
// overrides it).
func (l Locations) ArchiveDir() string { return filepath.Join(l.DataDir, "archive") }

// OwnDirs are the directories tether reads its own files from and
// writes them to: the config file's (where it is in its default place:
// a file TETHER_CONFIG names is the user's choice), the state directory
// (which holds the log), the cache and the data directory (which holds
// the default archive). Each must be private to the user (see
// safeio.CheckDir).
func (l Locations) OwnDirs() []string {
	var dirs []string
	if filepath.Dir(l.ConfigFile) == l.ConfigDir {
		dirs = append(dirs, l.ConfigDir)
	}
	return append(dirs, l.StateDir, l.CacheDir, l.DataDir)
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
	configDir := filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "tether")
	configFile := filepath.Join(configDir, "config.toml")
	if v := getenv("TETHER_CONFIG"); v != "" {
		configFile = v
	}
	openCodeConfigDir := getenv("OPENCODE_CONFIG_DIR")
	if !filepath.IsAbs(openCodeConfigDir) {
		openCodeConfigDir = filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "opencode")
	}
	openCodeConfig := getenv("OPENCODE_CONFIG")
	if !filepath.IsAbs(openCodeConfig) {
		openCodeConfig = ""
	}
	openCodeDB := getenv("OPENCODE_DB")
	if !filepath.IsAbs(openCodeDB) {
		openCodeDB = ""
	}
	return Locations{
		Home:        home,
		ConfigFile:  configFile,
		ConfigDir:   configDir,
		StateDir:    filepath.Join(xdg("XDG_STATE_HOME", ".local/state"), "tether"),
		CacheDir:    filepath.Join(xdg("XDG_CACHE_HOME", ".cache"), "tether"),
		DataDir:     filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "tether"),
		ClaudeDir:   orHome("CLAUDE_CONFIG_DIR", ".claude"),
		CodexDir:    orHome("CODEX_HOME", ".codex"),
		OpenCodeDir: filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "opencode"),
		OpenCodeDB:  openCodeDB,

		OpenCodeConfigDir: openCodeConfigDir,
		OpenCodeConfig:    openCodeConfig,
		OpenCodeCacheDir:  filepath.Join(xdg("XDG_CACHE_HOME", ".cache"), "opencode"),
	}
}

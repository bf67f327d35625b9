// Package claude holds what tether knows of Claude Code's on-disk formats.
package claude

import (
	"encoding/json"
	"path/filepath"
)

// DefaultCleanupPeriodDays is how long Claude Code keeps a transcript when
// no settings file says otherwise.
const DefaultCleanupPeriodDays = 30

// SettingsScope is one settings file Claude Code reads.
type SettingsScope struct {
	Name string // user, project, local, managed
	Path string
}

// SettingsScopes lists the settings files that apply in projectRoot, from
// the lowest precedence to the highest: user, project (shared), local,
// managed (policy; Linux path).
func SettingsScopes(configDir, projectRoot string) []SettingsScope {
	return []SettingsScope{
		{"user", filepath.Join(configDir, "settings.json")},
		{"project", filepath.Join(projectRoot, ".claude", "settings.json")},
		{"local", filepath.Join(projectRoot, ".claude", "settings.local.json")},
		{"managed", "/etc/claude-code/managed-settings.json"},
	}
}

// CleanupPeriodDays reads cleanupPeriodDays from a settings file's
// content; ok is false when the file does not set it (or is not JSON).
func CleanupPeriodDays(data []byte) (days int, ok bool, err error) {
	var s struct {
		CleanupPeriodDays *float64 `json:"cleanupPeriodDays"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, false, err
	}
	if s.CleanupPeriodDays == nil {
		return 0, false, nil
	}
	return int(*s.CleanupPeriodDays), true, nil
}

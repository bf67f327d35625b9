package state

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// The layout of tether's state directory (normally Locations.StateDir;
// tests and the hook pass their own). This is the one place that names
// the files; the names and places are what existing installs have on
// disk: do not change them.

// EventLogPath is <stateDir>/events.jsonl, the lifecycle log.
func EventLogPath(stateDir string) string { return filepath.Join(stateDir, "events.jsonl") }

// WindowsPath is <stateDir>/windows.json: the context window Claude Code's
// statusLine last reported per model.
func WindowsPath(stateDir string) string { return filepath.Join(stateDir, "windows.json") }

// BindingsPath is <stateDir>/bindings.json: which tmux session each agent
// session was last opened in.
func BindingsPath(stateDir string) string { return filepath.Join(stateDir, "bindings.json") }

// HooksRecordPath is <stateDir>/hooks-installed.json: what `tether hooks
// install` wrote into each settings file (see HooksRecord).
func HooksRecordPath(stateDir string) string { return filepath.Join(stateDir, "hooks-installed.json") }

// CodexTrustedPath is <stateDir>/codex-trusted.json: the Codex hooks files
// tether installed with --trust (see RecordCodexTrust).
func CodexTrustedPath(stateDir string) string { return filepath.Join(stateDir, "codex-trusted.json") }

// SummarizeLockPath is <stateDir>/summarize.lock, held while `tether
// summarize` writes summaries (one run at a time).
func SummarizeLockPath(stateDir string) string { return filepath.Join(stateDir, "summarize.lock") }

// SessionPath is <stateDir>/sessions/<id>.json, one session's hook state.
// The id is made safe as a file name whatever a harness sends.
func SessionPath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "sessions", SafeName(sessionID)+".json")
}

// RootPath is <stateDir>/roots/<hash>.json, the latest session of an
// identity root: a hash of the root keeps the name short and free of
// separators.
func RootPath(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(stateDir, "roots", hex.EncodeToString(sum[:12])+".json")
}

// StalePath is <stateDir>/stale/<id>.json, the marker of a session whose
// resume failed.
func StalePath(stateDir, sessionID string) string {
	return filepath.Join(stateDir, "stale", filepath.Base(sessionID)+".json")
}

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

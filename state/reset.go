package state

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// ResetPath is the file that asks the wrapper to start the next session in
// a root fresh instead of resuming: <stateDir>/reset/<name>.json, where
// name is the root's marker name, which the caller computes (the one it
// always was: Claude Code's project directory name of the root, which is
// one file name).
func ResetPath(stateDir, name string) string {
	return filepath.Join(stateDir, "reset", name+".json")
}

// MarkReset writes the reset marker name of root; sessionID may be empty.
// It returns the marker's path.
func MarkReset(stateDir, name, root, sessionID string, now time.Time) (string, error) {
	path := ResetPath(stateDir, name)
	data, _ := json.Marshal(map[string]any{"root": root, "sessionId": sessionID, "createdAt": now.UTC().Format(time.RFC3339)})
	if err := write(path, append(data, '\n'), false); err != nil {
		return "", err
	}
	return path, nil
}

// TakeReset reports whether the reset marker name exists and removes it,
// so that it acts once.
func TakeReset(stateDir, name string) (bool, error) {
	err := os.Remove(ResetPath(stateDir, name))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return err == nil, nil
}

package state

import (
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/tether-dev/tether/agent/claude"
)

// ResetPath is the file that asks the wrapper to start the next session in
// root fresh instead of resuming: <stateDir>/reset/<project dir name>.json.
func ResetPath(stateDir, root string) string {
	name, _ := claude.ProjectDirName(root)
	return resetMarkerPath(stateDir, name)
}

// MarkReset writes the reset marker for root; sessionID may be empty. It
// returns the marker's path.
func MarkReset(stateDir, root, sessionID string, now time.Time) (string, error) {
	path := ResetPath(stateDir, root)
	data, _ := json.Marshal(map[string]any{"root": root, "sessionId": sessionID, "createdAt": now.UTC().Format(time.RFC3339)})
	if err := write(path, append(data, '\n'), false); err != nil {
		return "", err
	}
	return path, nil
}

// TakeReset reports whether a reset marker exists for root and removes it,
// so that it acts once.
func TakeReset(stateDir, root string) (bool, error) {
	err := os.Remove(ResetPath(stateDir, root))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return err == nil, nil
}

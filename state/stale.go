package state

import (
	"encoding/json"
	"os"
	"time"

	"github.com/tether-dev/tether/internal/locations"
)

// stale remembers a session whose resume failed, with the transcript as it
// was then: resuming the same unchanged transcript would fail the same way,
// so the next attempt goes straight to a fresh start. Any change to the
// file (a trim, a restore, more turns) clears the verdict.
type stale struct {
	Reason string    `json:"reason"`
	Size   int64     `json:"size"`
	MTime  time.Time `json:"mtime"`
	At     time.Time `json:"at"`
}

// StalePath is where the stale marker of a session lives.
func StalePath(stateDir, sessionID string) string {
	return locations.StaleMarkerFile(stateDir, sessionID)
}

// MarkStale records that resuming sessionID failed for reason while its
// transcript was as it is now.
func MarkStale(stateDir, sessionID, transcript, reason string, now time.Time) error {
	st, err := os.Stat(transcript)
	if err != nil {
		return err
	}
	data, err := json.Marshal(stale{Reason: reason, Size: st.Size(), MTime: st.ModTime(), At: now})
	if err != nil {
		return err
	}
	return write(StalePath(stateDir, sessionID), data, false)
}

// StaleReason returns why resuming sessionID failed, with when, if its
// transcript has not changed since; "" otherwise. A marker that no longer
// applies (transcript changed, gone, marker unreadable) is removed.
func StaleReason(stateDir, sessionID, transcript string) string {
	path := StalePath(stateDir, sessionID)
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var s stale
	st, err := os.Stat(transcript)
	if json.Unmarshal(data, &s) != nil || err != nil || st.Size() != s.Size || !st.ModTime().Equal(s.MTime) {
		os.Remove(path)
		return ""
	}
	return s.Reason + ", as on " + s.At.Local().Format("Jan 2 15:04")
}

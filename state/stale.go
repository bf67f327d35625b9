package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/safeio"
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

// ClearStale removes the mark of sessionID, if any: a resume of it
// succeeded, so it is not stale whatever its transcript looks like.
func ClearStale(stateDir, sessionID string) {
	if stateDir != "" && sessionID != "" {
		os.Remove(StalePath(stateDir, sessionID))
	}
}

// StaleReason returns why resuming sessionID failed, with when, if its
// transcript has not changed since; "" otherwise. A marker that no longer
// applies (transcript changed, gone, marker unreadable) is removed.
func StaleReason(stateDir, sessionID, transcript string) string {
	path := StalePath(stateDir, sessionID)
	data, err := safeio.ReadOwn(path)
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

// StaleMark is a failed resume on record: the reason, when, and the
// transcript's size and time then. The catalog shows it (list, show) for
// as long as the transcript is unchanged — the same test the wrapper uses
// to skip a doomed resume.
type StaleMark struct {
	Reason string
	At     time.Time
	// Path is the mark's file: removing it makes tether try the resume
	// again.
	Path  string
	size  int64
	mtime time.Time
}

// StaleMarks reads every mark on record, by session id: one small file
// each, written only when a resume failed.
func StaleMarks(stateDir string) map[string]StaleMark {
	if stateDir == "" {
		return nil
	}
	dir := filepath.Dir(StalePath(stateDir, "x"))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]StaleMark{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		data, err := safeio.ReadOwn(filepath.Join(dir, e.Name()))
		var s stale
		if err != nil || json.Unmarshal(data, &s) != nil {
			continue
		}
		out[id] = StaleMark{Reason: s.Reason, At: s.At, Path: filepath.Join(dir, e.Name()), size: s.Size, mtime: s.MTime}
	}
	return out
}

// Holds reports whether the mark still applies to transcript: unchanged
// since the failed resume (a trim, a restore or new turns clear it).
func (m StaleMark) Holds(transcript string) bool {
	st, err := os.Stat(transcript)
	return err == nil && st.Size() == m.size && st.ModTime().Equal(m.mtime)
}

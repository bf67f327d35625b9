package wrap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
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

func stalePath(stateDir, id string) string {
	return filepath.Join(stateDir, "stale", filepath.Base(id)+".json")
}

// markStale records the failed resume (see MarkStale).
func (o Options) markStale(id, transcript, reason string) {
	MarkStale(o.StateDir, id, transcript, reason, o.Now())
}

// staleReason returns why the session was found stale, if its transcript
// has not changed since; "" otherwise.
func (o Options) staleReason(id string, tr transcript) string {
	if o.StateDir == "" || tr.path == "" {
		return ""
	}
	data, err := os.ReadFile(stalePath(o.StateDir, id))
	if err != nil {
		return ""
	}
	var s stale
	st, err := os.Stat(tr.path)
	if json.Unmarshal(data, &s) != nil || err != nil || st.Size() != s.Size || !st.ModTime().Equal(s.MTime) {
		os.Remove(stalePath(o.StateDir, id))
		return ""
	}
	return s.Reason + ", as on " + s.At.Local().Format("Jan 2 15:04")
}

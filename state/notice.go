package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/internal/safeio"
)

// A notice is what the wrapper has to tell the user about the session it
// is starting (a fresh one in place of a session that could not be
// resumed, one restored from the archive) left for the agent's
// SessionStart hook to show inside the agent's screen, where the user
// looks: printed before the agent starts, it is drawn over at once.
type notice struct {
	Text string `json:"text"`
	// Session is the session the notice is about when the wrapper knows
	// its id (a restored one); "" means the next new session in the root.
	Session string    `json:"session,omitempty"`
	At      time.Time `json:"at"`
}

// noticeTTL bounds how long a notice waits for its session: one left by a
// wrapper that died, or by one whose agent runs no hooks, must not
// surface in a session started much later.
const noticeTTL = 2 * time.Minute

// NoticePath is <stateDir>/notices/<hash>.json, the notice pending for the
// next session started in an identity root (hashed as RootPath is).
func NoticePath(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(stateDir, "notices", hex.EncodeToString(sum[:12])+".json")
}

// LeaveNotice leaves text for the SessionStart hook of the next session
// started in root (of session when it is not ""), replacing any notice
// pending there.
func LeaveNotice(stateDir, root, session, text string, now time.Time) error {
	data, err := json.Marshal(notice{Text: text, Session: session, At: now})
	if err != nil {
		return err
	}
	return write(NoticePath(stateDir, root), data, true)
}

// DropNotice removes the notice pending in root, if any: the wrapper's
// session has ended, shown or not.
func DropNotice(stateDir, root string) {
	os.Remove(NoticePath(stateDir, root))
}

// TakeNotice returns the notice pending in root for a session starting
// now, and removes it, so it is shown once: a notice for this session,
// or one for the next new session when this one is new (source
// "startup"). It reads one small file, and nothing when none is pending
// (the hook's hot path). A FIFO or other non-regular file in its place is
// never opened for reading in a way that blocks.
func TakeNotice(stateDir, root, session, source string, now time.Time) string {
	if stateDir == "" || root == "" {
		return ""
	}
	path := NoticePath(stateDir, root)
	data, err := safeio.ReadOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	regular := err == nil
	if len(data) > 64<<10 {
		data = nil
	}
	var n notice
	if !regular || json.Unmarshal(data, &n) != nil || n.Text == "" || now.Sub(n.At) > noticeTTL || n.At.After(now.Add(time.Minute)) {
		os.Remove(path)
		return ""
	}
	if n.Session != session && (n.Session != "" || source != "startup") {
		return "" // another session's: leave it
	}
	// Of two hooks that read it at once, only the one whose remove
	// succeeds shows it.
	if os.Remove(path) != nil {
		return ""
	}
	return n.Text
}

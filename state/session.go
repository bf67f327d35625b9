package state

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/safeio"
)

// Session is what tether knows about one session, kept in
// <stateDir>/sessions/<id>.json; the identity root's index
// <stateDir>/roots/<hash>.json is a symbolic link to the file of the
// root's latest session (older tethers wrote a copy there), so that a
// prompt segment reads one small file. It holds metadata only.
type Session struct {
	SessionID      string `json:"session_id"`
	Harness        string `json:"harness"`
	IdentityRoot   string `json:"identity_root"`
	Cwd            string `json:"cwd,omitempty"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Model          string `json:"model,omitempty"`

	// Tokens is the context in use after the last turn (input + cache
	// creation + cache read of the last main-chain assistant message).
	Tokens int64 `json:"tokens"`
	// Window is the context window used for Percent; WindowSource says
	// where it came from: statusline, rollout, config, model, default.
	Window       int64   `json:"window"`
	WindowSource string  `json:"window_source,omitempty"`
	Percent      float64 `json:"percent"`
	// ReportedWindow is the window Claude's statusLine last reported for
	// this session; it wins over any table.
	ReportedWindow int64 `json:"reported_window,omitempty"`
	// UsageKnown is false until a turn's usage was found (and again right
	// after a compaction, until the next turn).
	UsageKnown bool `json:"usage_known"`
	// CompactPending is set from PreCompact until a turn's usage after the
	// compaction is known; TokensBeforeCompact is the usage PreCompact saw.
	CompactPending      bool  `json:"compact_pending,omitempty"`
	TokensBeforeCompact int64 `json:"tokens_before_compact,omitempty"`

	LastEvent string    `json:"last_event"`
	Started   time.Time `json:"started,omitzero"`
	// RunStarted is when this run of the session began (its last
	// startup, resume, fork or clear), which session_end measures from.
	RunStarted time.Time `json:"run_started,omitzero"`
	Updated    time.Time `json:"updated"`
	Ended      bool      `json:"ended,omitempty"`
}

// LoadSession reads a session's state. A missing file returns
// fs.ErrNotExist; a corrupt one an error naming it.
func LoadSession(stateDir, sessionID string) (Session, error) {
	return readSession(SessionPath(stateDir, sessionID))
}

// LatestForRoot returns the state of the session that most recently
// reported for the identity root: one small file read, for the prompt
// segment. fs.ErrNotExist means no session has reported for root.
func LatestForRoot(stateDir, root string) (Session, error) {
	path := RootPath(stateDir, root)
	// A link to the session's file, in the same private directory.
	data, err := safeio.ReadFile(path)
	if err != nil {
		return Session{}, err
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return Session{}, fmt.Errorf("%s: %w", path, err)
	}
	if s.IdentityRoot != root {
		// A hash collision, or a file from elsewhere: not this root's.
		return Session{}, fmt.Errorf("%s: indexes %q, not %q: %w", path, s.IdentityRoot, root, fs.ErrNotExist)
	}
	return s, nil
}

func readSession(path string) (s Session, err error) {
	data, err := safeio.ReadOwn(path)
	if err != nil {
		return Session{}, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Session{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Save writes the session's state atomically and, when it has an identity
// root, points the root's index at it (a symbolic link, rewritten only
// when the root's latest session changes). Concurrent writers never leave
// a torn file; the last one wins. It does not fsync: the state is
// recomputed from the transcript at the next turn, and a Stop hook should
// not wait for the disk (see replaceNoSync).
func Save(stateDir string, s Session) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	path := SessionPath(stateDir, s.SessionID)
	if err := replaceNoSync(path, data); err != nil {
		return fmt.Errorf("save session state: %w", err)
	}
	if s.IdentityRoot != "" {
		if err := linkRoot(RootPath(stateDir, s.IdentityRoot), path); err != nil {
			return fmt.Errorf("save root index: %w", err)
		}
	}
	return nil
}

// Percent is tokens as a percentage of window, rounded down to one
// decimal.
func Percent(tokens, window int64) float64 {
	return agent.Percent(tokens, window)
}

package wrap

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// StaleMark is a failed resume on record: the reason, when, and the
// transcript's size and time then. The catalog shows it (list, show) for
// as long as the transcript is unchanged — the same test the wrapper uses
// to skip a doomed resume.
type StaleMark struct {
	Reason string
	At     time.Time
	size   int64
	mtime  time.Time
}

// MarkStale records that resuming id from transcript failed for reason.
// Errors are ignored: the mark only saves a doomed attempt next time.
func MarkStale(stateDir, id, transcript, reason string, at time.Time) {
	if stateDir == "" || transcript == "" {
		return
	}
	st, err := os.Stat(transcript)
	if err != nil {
		return
	}
	data, _ := json.Marshal(stale{Reason: reason, Size: st.Size(), MTime: st.ModTime(), At: at})
	p := stalePath(stateDir, id)
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil {
		atomicfile.WriteBytes(p, data, atomicfile.Options{Perm: 0o600})
	}
}

// StaleMarks reads every mark on record, by session id: one small file
// each, written only when a resume failed.
func StaleMarks(stateDir string) map[string]StaleMark {
	if stateDir == "" {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(stateDir, "stale"))
	if err != nil {
		return nil
	}
	out := map[string]StaleMark{}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(stateDir, "stale", e.Name()))
		var s stale
		if err != nil || json.Unmarshal(data, &s) != nil {
			continue
		}
		out[id] = StaleMark{Reason: s.Reason, At: s.At, size: s.Size, mtime: s.MTime}
	}
	return out
}

// Holds reports whether the mark still applies to transcript: unchanged
// since the failed resume (a trim, a restore or new turns clear it).
func (m StaleMark) Holds(transcript string) bool {
	st, err := os.Stat(transcript)
	return err == nil && st.Size() == m.size && st.ModTime().Equal(m.mtime)
}

// Package summarize makes, checks and stores short summaries of agent
// sessions: what a session was about and where it stopped. A Provider
// (the user's Claude Code or Codex run headless, the Anthropic API, or any
// command) turns a bounded, deterministic input built from the catalog's
// evidence into a JSON reply; the reply is validated and stored in
// tether's data dir, keyed by (harness, id, last activity), so a session
// is summarized again only when it changed.
package summarize

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/atomicfile"
)

// Dir is where summaries live under tether's data dir.
func Dir(dataDir string) string { return filepath.Join(dataDir, "summaries") }

// Path is the file of one session's summary. Ids are file names in both
// harnesses; one that could escape the directory gets no path.
func Path(dataDir, harness, id string) (string, error) {
	if !safeName(harness) || !safeName(id) {
		return "", fmt.Errorf("session %s:%s: not usable as a file name", harness, id)
	}
	return filepath.Join(Dir(dataDir), harness, id+".json"), nil
}

func safeName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, "/\\\x00")
}

// Key is the cache key of a summary: a session is summarized again only
// when its last activity moved.
func Key(harness, id string, lastActivity time.Time) string {
	return harness + ":" + id + "@" + lastActivity.UTC().Format(time.RFC3339Nano)
}

// record is the stored file.
type record struct {
	Key     string          `json:"key"`
	Harness string          `json:"harness"`
	ID      string          `json:"id"`
	Summary catalog.Summary `json:"summary"`
}

// Load returns the stored summary of a session, or nil when there is none.
// Current in the result is as stored; use Fresh to compare it with the
// session's last activity. For the picker, the search index and the
// catalog's outputs.
func Load(dataDir, harness, id string) (*catalog.Summary, error) {
	p, err := Path(dataDir, harness, id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("summary %s: %w", p, err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("summary %s: %w", p, err)
	}
	if r.Harness != harness || r.ID != id {
		return nil, fmt.Errorf("summary %s: holds %s:%s", p, r.Harness, r.ID)
	}
	return &r.Summary, nil
}

// Attach loads the summary of s into s.Summary, with Current saying whether
// it covers the session's last activity. A missing or unreadable summary
// leaves s as it was: summaries are optional.
func Attach(dataDir string, s *catalog.Session) {
	sum, err := Load(dataDir, s.Harness, s.ID)
	if err != nil || sum == nil {
		return
	}
	sum.Current = Fresh(sum, s.LastActivity)
	s.Summary = sum
}

// Fresh reports whether sum covers a session last active at lastActivity.
func Fresh(sum *catalog.Summary, lastActivity time.Time) bool {
	return sum != nil && sum.LastActivity.Equal(lastActivity)
}

// CoversFailedResume reports whether sum still describes s after a resume
// that failed: current, or older only by the failed attempt, which
// appends at most its one prompt and the error (a prompt too long) to
// the transcript. For the wrapper's handoff, which reads the session
// after that attempt.
func CoversFailedResume(sum *catalog.Summary, s catalog.Session) bool {
	if sum == nil {
		return false
	}
	if Fresh(sum, s.LastActivity) {
		return true
	}
	return s.Counts != nil && sum.HumanPrompts > 0 && !sum.LastActivity.After(s.LastActivity) &&
		s.Counts.HumanPrompts <= sum.HumanPrompts+1
}

// Save stores sum for a session atomically: the file 0600 and its
// directories 0700, since a summary holds what the prompts said.
func Save(dataDir, harness, id string, sum catalog.Summary) error {
	p, err := Path(dataDir, harness, id)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("summary dir: %w", err)
	}
	sum.Current = true
	b, err := json.MarshalIndent(record{Key: Key(harness, id, sum.LastActivity), Harness: harness, ID: id, Summary: sum}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(p, append(b, '\n'), atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("summary %s: %w", p, err)
	}
	return nil
}

// AttachAll attaches the stored summaries to a list of sessions, reading
// the summaries directory of each harness among them once rather than
// probing a file per session.
func AttachAll(dataDir string, ss []catalog.Session) {
	have, read := map[string]bool{}, map[string]bool{}
	for i := range ss {
		h := ss[i].Harness
		if read[h] || h == "" || strings.ContainsAny(h, `/\.`) {
			continue
		}
		read[h] = true
		ents, err := os.ReadDir(filepath.Join(Dir(dataDir), h))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if id, ok := strings.CutSuffix(e.Name(), ".json"); ok {
				have[h+":"+id] = true
			}
		}
	}
	if len(have) == 0 {
		return
	}
	for i := range ss {
		if have[ss[i].Key()] {
			Attach(dataDir, &ss[i])
		}
	}
}

package archive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// Index is Dir/index.json: what the archive holds, rebuilt by every sync
// from the store itself (the stored files are the truth; the index is a
// summary status and doctor read without walking the store). All of its
// code is in this file so it can move with tether's other state files.
type Index struct {
	Version int          `json:"version"`
	Updated time.Time    `json:"updated"`
	Entries []IndexEntry `json:"entries"`
}

// IndexEntry is one archived transcript.
type IndexEntry struct {
	Harness string `json:"harness"`
	ID      string `json:"id,omitempty"`
	// Stored is relative to the archive directory.
	Stored string `json:"stored"`
	// Live is where the transcript lives (and is restored to).
	Live string `json:"live"`
	Mode string `json:"mode"`
	// LiveGone is set when the live file was missing at the last sync:
	// the archive is the only copy.
	LiveGone bool `json:"liveGone,omitempty"`
	// DiskBytes is what the stored file costs on its own: 0 for a link
	// that shares its blocks with the live file.
	DiskBytes int64     `json:"diskBytes"`
	LastWrite time.Time `json:"lastWrite"`
}

// IndexPath is the index file.
func (s *Store) IndexPath() string { return filepath.Join(s.Dir, "index.json") }

// LoadIndex reads the index; a missing one is empty.
func (s *Store) LoadIndex() (Index, error) {
	ix := Index{Version: 1}
	data, err := readNoFollow(s.IndexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return ix, nil
	}
	if err != nil {
		return ix, err
	}
	if err := json.Unmarshal(data, &ix); err != nil {
		return Index{Version: 1}, fmt.Errorf("%s: not an archive index: %w", s.IndexPath(), err)
	}
	return ix, nil
}

// BuildIndex walks the store and describes every stored file. roots maps
// a harness to its live data root; ids maps a stored path to its session
// id where the caller knows it.
func (s *Store) BuildIndex(roots map[string]string, ids map[string]string, now time.Time) (Index, error) {
	ix := Index{Version: 1, Updated: now.UTC()}
	hs := make([]string, 0, len(roots))
	for h := range roots {
		hs = append(hs, h)
	}
	sort.Strings(hs)
	err := s.Walk(hs, func(e Entry) {
		rel, _ := filepath.Rel(s.Dir, e.Stored)
		live, _ := s.LivePath(e.Harness, e.Stored, roots[e.Harness])
		ie := IndexEntry{Harness: e.Harness, ID: ids[e.Stored], Stored: rel, Live: live, Mode: ModeLink,
			DiskBytes: e.Info.Size(), LastWrite: e.LastWrite().UTC()}
		if e.Compressed() {
			ie.Mode = ModeCopy
		} else if st, ok := e.Info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			ie.DiskBytes = 0
		}
		if _, err := os.Lstat(live); errors.Is(err, fs.ErrNotExist) {
			ie.LiveGone = true
		}
		ix.Entries = append(ix.Entries, ie)
	})
	return ix, err
}

// SaveIndex writes the index atomically (0600).
func (s *Store) SaveIndex(ix Index) error {
	data, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	// atomicfile writes through a symlink to its target: refuse one.
	if fi, err := os.Lstat(s.IndexPath()); err == nil {
		if err := checkStored(fi, s.IndexPath()); err != nil {
			return err
		}
	}
	return atomicfile.WriteBytes(s.IndexPath(), append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

// IndexExports adds the sessions of harness stored as exports (ModeExport)
// to ix. have says whether the agent still has session id, and where
// (its database): an export whose session is gone is the only copy.
func (s *Store) IndexExports(ix *Index, harness string, have func(id string) (where string, ok bool)) error {
	return s.Walk([]string{harness}, func(e Entry) {
		id := ExportID(e.Stored)
		if id == "" {
			return
		}
		rel, _ := filepath.Rel(s.Dir, e.Stored)
		where, ok := have(id)
		ix.Entries = append(ix.Entries, IndexEntry{Harness: harness, ID: id, Stored: rel, Live: where, Mode: ModeExport,
			LiveGone: !ok, DiskBytes: e.Info.Size(), LastWrite: e.LastWrite().UTC()})
	})
}

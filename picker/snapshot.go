package picker

import (
	"bufio"
	"encoding/gob"
	"io"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/atomicfile"
)

// The snapshot is the last listing the picker saw, so the next picker
// paints its first screen without listing the catalog (which stats every
// transcript): the refresh then runs in the background. It holds titles
// and prompts, so it is written 0600, like the catalog's own cache.

// snapshotVersion changes whenever what is stored changes meaning.
const snapshotVersion = 1

type snapshotFile struct {
	Version  int
	Sessions []catalog.Session
}

// SnapshotPath is where the picker keeps its snapshot under cacheDir.
func SnapshotPath(cacheDir string) string { return filepath.Join(cacheDir, "picker-sessions.gob") }

// LoadSnapshot reads the snapshot; a missing, unreadable or outdated file
// gives nothing (the background refresh fills the list).
func LoadSnapshot(path string) []catalog.Session {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var sf snapshotFile
	if gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&sf) != nil || sf.Version != snapshotVersion {
		return nil
	}
	return sf.Sessions
}

// SaveSnapshot writes ss (listing fields only; full-read fields are
// dropped) atomically, mode 0600.
func SaveSnapshot(path string, ss []catalog.Session) error {
	light := make([]catalog.Session, len(ss))
	for i, s := range ss {
		s.Evidence, s.ContextCurve, s.Counts = nil, nil, nil
		light[i] = s
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, atomicfile.Options{Perm: 0o600}, func(w io.Writer) error {
		return gob.NewEncoder(w).Encode(snapshotFile{Version: snapshotVersion, Sessions: light})
	})
}

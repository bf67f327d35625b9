// Package snapshot keeps the last listing the picker saw, so the next
// picker paints its first screen without listing the catalog (which stats
// every transcript): the refresh then runs in the background. It holds
// titles and prompts, so it is written 0600, like the catalog's own cache.
// Its encoding is codec.go's (the file's name stays picker-sessions.gob: a
// file of the gob days is not a snapshot of this version, so it is ignored
// and then replaced).
package snapshot

import (
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
)

// Path is where the picker keeps its snapshot under cacheDir.
func Path(cacheDir string) string { return filepath.Join(cacheDir, "picker-sessions.gob") }

// Load reads the snapshot: the sessions and their short ids (for
// picker.Options.Sessions and Options.Short). A missing, unreadable,
// damaged or outdated file gives nothing (the background refresh fills
// the list). The strings share the bytes read.
func Load(path string) (ss []catalog.Session, short []string) {
	data, err := safeio.ReadOwn(path)
	if err != nil {
		return nil, nil
	}
	ss, short, err = decodeSnapshot(data)
	if err != nil {
		return nil, nil
	}
	return ss, short
}

// Save writes ss (listing fields only; full-read fields are
// dropped) and their short ids atomically, mode 0600.
func Save(path string, ss []catalog.Session) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data := encodeSnapshot(ss, catalog.ShortIDs(ss))
	return atomicfile.WriteBytes(path, data, atomicfile.Options{Perm: 0o600})
}

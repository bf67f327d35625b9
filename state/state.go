// Package state owns the files tether itself keeps under its state
// directory ($XDG_STATE_HOME/tether): per-session hook state and the
// per-root index, stale-resume markers, reset markers, tmux bindings, the
// context windows the statusLine reported, the lifecycle log's place, the
// record of what `tether hooks install` wrote and the Codex hooks files it
// trusted. internal/locations says where the directory is; this package
// names every file in it (files.go), decides what is in them and how they
// are written (atomically, 0600 in 0700 directories). It knows nothing of
// the agents' own formats. (tether's caches — the catalog's, the picker's
// snapshot, the search index, the decoded config — are rebuilt from the
// agents' files and belong to the packages that build them.)
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/atomicfile"

	"github.com/tether-dev/tether/internal/safeio"
)

// Modes of the files and directories this package creates.
const (
	FileMode = 0o600
	DirMode  = 0o700
)

// readJSON decodes the JSON file at path into v; a missing file leaves v
// as it is. Errors name the file; what says what it should have been.
func readJSON(path, what string, v any) error {
	data, err := safeio.ReadOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: not %s: %w", path, what, err)
	}
	return nil
}

// write replaces path atomically, creating its directory when missing.
// noSync skips the fsync for files that are cheap to recompute.
func write(path string, data []byte, noSync bool) error {
	opts := atomicfile.Options{Perm: FileMode, NoSync: noSync}
	err := atomicfile.WriteBytes(path, data, opts)
	if errors.Is(err, fs.ErrNotExist) {
		if mkErr := os.MkdirAll(filepath.Dir(path), DirMode); mkErr != nil {
			return mkErr
		}
		err = atomicfile.WriteBytes(path, data, opts)
	}
	return err
}

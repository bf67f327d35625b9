package hot

import (
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/safeio"
)

// ArchiveStore is the archive as configured ([archive] dir, mode) and
// whether it is enabled.
func ArchiveStore(cfg config.Config, loc locations.Locations) (st *archive.Store, enabled bool) {
	dir := cfg.Archive.Dir
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		dir = filepath.Join(loc.Home, rest)
	}
	if dir == "" {
		dir = loc.ArchiveDir()
	}
	return &archive.Store{Dir: dir, Mode: cfg.Archive.Mode}, cfg.Archive.Enabled
}

// SafeArchiveStore is ArchiveStore refusing an archive directory someone
// else owns or may write to (safeio.CheckDir): nothing is archived to it
// or restored from it.
func SafeArchiveStore(cfg config.Config, loc locations.Locations) (st *archive.Store, enabled bool, err error) {
	st, enabled = ArchiveStore(cfg, loc)
	if err := safeio.CheckDir(st.Dir); err != nil {
		return nil, false, err
	}
	return st, enabled, nil
}

// HarnessRoots are the agents' data directories by harness name, as the
// archive's sources name them.
func HarnessRoots(loc locations.Locations) map[string]string {
	return map[string]string{agent.Claude: loc.ClaudeDir, agent.Codex: loc.CodexDir}
}

// HookArchive is the hooks' part of the archive at SessionStart and
// SessionEnd: in link mode one hard link (two stats when it is already
// there); copies are left to listings and 'tether archive sync', which a
// hook has no time for. Nothing is reported to the agent.
func HookArchive(d *Deps) func(harness, sessionID, transcript string) {
	return func(harness, sessionID, transcript string) {
		if transcript == "" || harness == "" {
			return
		}
		cfg, err := d.Config()
		if err != nil {
			return
		}
		st, enabled, err := SafeArchiveStore(cfg, d.Loc)
		if err != nil || !enabled || st.Mode == archive.ModeCopy {
			return
		}
		root := HarnessRoots(d.Loc)[harness]
		if !archive.Inside(root, transcript) {
			// Not archived, and nothing to report (ErrOutsideRoot).
			return
		}
		st.LinkOnly = true
		res, err := st.Archive(archive.Source{Harness: harness, ID: sessionID, Root: root, Path: transcript})
		if err != nil {
			if !errors.Is(err, archive.ErrOutsideRoot) && !errors.Is(err, fs.ErrNotExist) && !archive.IsBudget(err) {
				d.Log().Debug(eventlog.ArchiveError, sessionID, slog.String("error", err.Error()))
			}
			return
		}
		if res.Action != archive.Unchanged {
			d.Log().Debug(eventlog.Archive, sessionID, slog.String("action", res.Action))
		}
	}
}

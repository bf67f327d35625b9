package hot

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
)

// ExportInterval is how often at most a session's turns start a
// background export: one takes seconds (OpenCode's start), and a sync
// exports whatever changed since.
const ExportInterval = 10 * time.Minute

// ExportStampDir holds one empty file per session whose background
// export was started, its mtime the start (the rate limit).
func ExportStampDir(stateDir string) string { return filepath.Join(stateDir, "exports") }

// AutoExport returns what a hook calls when a session of an agent whose
// sessions tether archives as exports (agent.Exporter: OpenCode) ended a
// turn (Stop) or ended (SessionEnd): `tether archive sync --session
// HARNESS:ID`, started by start (StartBackground of the full tether), at
// most once per session per ExportInterval, only with the archive
// enabled. tether-hot itself neither exports nor reads the database.
func AutoExport(d *Deps, start func(args []string) (pid int, err error)) func(harness, id string) {
	return func(harness, id string) {
		if id == "" || state.SafeName(id) != id || len(id) > 200 {
			return
		}
		if _, ok := d.Agents().Get(harness).(agent.Exporter); !ok {
			return
		}
		cfg, err := d.Config()
		if err != nil {
			return
		}
		if _, enabled, err := SafeArchiveStore(cfg, d.Loc); err != nil || !enabled {
			return
		}
		if !takeExportTurn(ExportStampDir(d.Loc.StateDir), harness+"-"+id, d.Now()) {
			return
		}
		pid, err := start([]string{"archive", "sync", "--session", harness + ":" + id})
		log := d.Log().With(harness, "")
		if err != nil {
			log.Warn(eventlog.ArchiveExportFailed, id, slog.String("kind", "spawn"), slog.String("error", err.Error()))
			return
		}
		log.Info(eventlog.ArchiveExportStart, id, slog.Int("pid", pid))
	}
}

// takeExportTurn reports whether name's last export started
// ExportInterval or more before now (or never), and then stamps now. Two
// hooks at once may both start one: the second finds the export current.
func takeExportTurn(dir, name string, now time.Time) bool {
	path := filepath.Join(dir, name)
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return false
		}
		if since := now.Sub(fi.ModTime()); since >= 0 && since < ExportInterval {
			return false
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return os.Chtimes(path, now, now) == nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/termsafe"
)

func (a *App) archiveRestoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "put an archived session's transcript back where the agent looks for it, without resuming",
		ArgsUsage: "ID",
		Description: "Restores into the agent's directory (Claude Code: projects/<project>/<id>.jsonl; Codex:\n" +
			"the rollout's original path) through a temporary file and a link, never over an existing\n" +
			"file (exit 4). 'tether sessions resume ID' and the wrapper restore on their own.\n" +
			"An OpenCode session OpenCode deleted is put back with 'opencode import', run in the\n" +
			"session's directory; one OpenCode still has is refused (exit 4).\n\n" +
			"Examples:\n  tether archive restore 3f2a\n  tether archive restore codex:0199a1b2",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			id, err := oneID(cmd)
			if err != nil {
				return err
			}
			b, err := a.base("")
			if err != nil {
				return err
			}
			s, err := resolveSession(ctx, b.Catalog, id)
			if err != nil {
				return err
			}
			if s.State != catalog.StateArchived && a.exporters()[s.Harness] != nil {
				return refuseLiveExport(s)
			}
			if s.State != catalog.StateArchived {
				return exitcode.With(exitcode.Refused, fmt.Errorf("session %s is not only in the archive: its transcript is at %s", s.Key(), termsafe.String(s.Source)))
			}
			return a.restoreArchived(s)
		},
	}
}

// restoreArchived puts an archived session's transcript back and says so
// in one stderr line. A file in the way is refused with exit status 4.
func (a *App) restoreArchived(s catalog.Session) error {
	if s.Archive == nil {
		return fmt.Errorf("session %s has no archived transcript", s.Key())
	}
	if ex := a.exporters()[s.Harness]; ex != nil {
		return a.restoreExport(context.Background(), ex, s)
	}
	st, _, err := a.archiveStore()
	if err != nil {
		return err
	}
	if err := st.Restore(s.Archive.Path, s.Archive.Restore); err != nil {
		if errors.Is(err, archive.ErrExists) {
			return exitcode.With(exitcode.Refused, err)
		}
		return err
	}
	a.Log().With(s.Harness, s.IdentityRoot).Info(eventlog.ArchiveRestore, s.ID, slog.String("path", s.Archive.Restore),
		slog.Bool("compressed", s.Archive.Compressed))
	fmt.Fprintf(a.IO.ErrOut, "tether: restored %s %s from tether's archive to %s\n", s.Harness, termsafe.String(s.ShortID()), termsafe.String(s.Archive.Restore))
	return nil
}

func existingParent(p string) string {
	for {
		if _, err := os.Stat(p); err == nil || p == filepath.Dir(p) {
			return p
		}
		p = filepath.Dir(p)
	}
}

func sameDevice(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(existingParent(b))
	if err1 != nil || err2 != nil {
		return false
	}
	sx, ok1 := x.Sys().(*syscall.Stat_t)
	sy, ok2 := y.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sx.Dev == sy.Dev
}

// fsName names the file system type of path's (nearest existing) dir.
func fsName(path string) string {
	var s syscall.Statfs_t
	if err := syscall.Statfs(existingParent(path), &s); err != nil {
		return "unknown"
	}
	names := map[int64]string{0xEF53: "ext4", 0x01021994: "tmpfs", 0x9123683E: "btrfs", 0x58465342: "xfs",
		0x794c7630: "overlayfs", 0x6969: "nfs", 0x2FC12FC1: "zfs", 0x65735546: "fuse", 0x5346544e: "ntfs", 0x4d44: "vfat"}
	if n, ok := names[int64(s.Type)]; ok {
		return n
	}
	return fmt.Sprintf("0x%x", s.Type)
}

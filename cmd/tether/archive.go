package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
)

// scanBudget caps what one catalog listing compresses in copy mode, so a
// first `tether sessions` over years of history stays a listing; `tether
// archive sync` has no cap.
const scanBudget = 64 << 20

// archiveStore is the archive the config describes; enabled is false
// when [archive] enabled = false (existing archived sessions are still
// listed and restorable, nothing new is kept).
func (a *App) archiveStore() (st *archive.Store, enabled bool, err error) {
	cfg, err := a.Config()
	if err != nil {
		return nil, false, err
	}
	// An archive directory others may write to is refused.
	return hot.SafeArchiveStore(cfg, a.Loc)
}

// catalogArchive is the archive part of a catalog over harness ("" for
// all): archived sessions are listed, and, when the archive is enabled,
// every listing archives new and grown transcripts.
func (a *App) catalogArchive(harness string, rules []catalog.WorkRule) *catalog.Archive {
	st, enabled, err := a.archiveStore()
	if err != nil {
		return nil
	}
	cache := catalog.ArchiveCacheFiles(a.Loc.CacheDir)
	roots := hot.HarnessRoots(a.Loc)
	ca := &catalog.Archive{}
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir) {
		if h := ag.Name(); harness == "" || harness == h {
			// The archive's reader reads the stored copies (decoding
			// compressed ones); it lists nothing live.
			r := ag.Sessions(agent.ReaderConfig{Open: catalog.ArchiveOpen, CachePath: catalog.ArchiveCacheFile(a.Loc.CacheDir, h), WorkRules: rules})
			ca.Sources = append(ca.Sources, catalog.ArchiveSource{Dir: st.HarnessDir(h), Root: roots[h], Reader: r})
		}
	}
	ca.State = cache[2]
	if enabled && a.Getenv("TETHER_ARCHIVE_SCAN") != "0" {
		mode := archive.ModeLink
		if st.Mode == archive.ModeCopy {
			mode = archive.ModeCopy
		}
		ca.SyncKey = st.Dir + "\x00" + mode
		ca.Sync = func(live []catalog.Session) []catalog.Synced {
			st.Budget, st.Batch = scanBudget, true
			unlock, ok, err := st.Lock()
			if err != nil || !ok {
				return nil // another sync runs; it archives these too
			}
			defer unlock()
			defer st.Flush() // before the unlock: the ledgers are written under the lock
			sum := archiveSessions(st, roots, live, nil)
			for _, n := range sum.notes {
				// Metadata only: the action, not the paths.
				a.Log().Warn(eventlog.Archive, n.id, slog.String("action", n.action))
			}
			if sum.failed > 0 {
				a.Log().Debug(eventlog.ArchiveError, "", slog.Int("failed", sum.failed), slog.String("error", sum.firstErr))
			}
			return sum.synced
		}
	}
	return ca
}

// syncSummary counts what archiveSessions did.
type syncSummary struct {
	actions  map[string]int
	bytes    int64
	failed   int
	skipped  int
	firstErr string
	ids      map[string]string // stored path -> session id
	// synced says, per session, whether its stored file is now current.
	synced []catalog.Synced
	// notes are what the user should know: transcripts found truncated
	// or rewritten in place, earlier copies kept aside.
	notes []archiveNote
}

// archiveNote is one thing archiveSessions tells the user.
type archiveNote struct {
	id, action, text string
}

// archiveSessions brings the stored file of every live session up to
// date. progress, when set, is called after each session.
func archiveSessions(st *archive.Store, roots map[string]string, ss []catalog.Session, progress func(done, total int)) syncSummary {
	sum := syncSummary{actions: map[string]int{}, ids: map[string]string{}, synced: make([]catalog.Synced, len(ss))}
	for i, s := range ss {
		if progress != nil {
			progress(i+1, len(ss))
		}
		root := roots[s.Harness]
		if s.State == catalog.StateArchived || s.Source == "" || root == "" {
			continue
		}
		res, err := st.Archive(archive.Source{Harness: s.Harness, ID: s.ID, Root: root, Path: s.Source})
		sum.synced[i] = catalog.Synced{OK: err == nil, Linked: res.Linked, MTime: res.LiveMTime.UnixNano()}
		switch {
		case archive.IsBudget(err):
			sum.skipped++
		case errors.Is(err, fs.ErrNotExist):
			// Listed from Codex's state DB, but the rollout is gone.
			sum.synced[i] = catalog.Synced{OK: true, Linked: true}
		case err != nil:
			sum.failed++
			if sum.firstErr == "" {
				sum.firstErr = err.Error()
			}
		default:
			sum.actions[res.Action]++
			sum.bytes += res.Bytes
			sum.ids[res.Stored] = s.ID
			sum.notes = append(sum.notes, archiveNotes(s.ID, s.Source, res)...)
		}
	}
	return sum
}

// archiveNotes says what an in-place change of a transcript cost.
func archiveNotes(id, live string, res archive.Result) []archiveNote {
	var out []archiveNote
	if res.Action == archive.Unlinked {
		out = append(out, archiveNote{id, archive.Unlinked, fmt.Sprintf("%s was truncated or rewritten in place; its archive link shared the file, so what it held before is lost; "+
			"the archive keeps a separate copy of it from now on", termsafe.String(live))})
	}
	if res.Kept != "" {
		out = append(out, archiveNote{id, "kept", fmt.Sprintf("%s shrank or was rewritten; the archive's earlier copy is kept at %s",
			termsafe.String(live), termsafe.String(res.Kept))})
	}
	return out
}

func (a *App) archiveCommand() *cli.Command {
	return &cli.Command{
		Name:  "archive",
		Usage: "keep every transcript, so sessions survive Claude Code's cleanup (status, sync, prune, restore)",
		Description: "Claude Code deletes transcripts older than cleanupPeriodDays (default 30). tether keeps\n" +
			"each transcript in $XDG_DATA_HOME/tether/archive (a hard link, or a zstd copy on another\n" +
			"file system or with [archive] mode = \"copy\"), refreshed by every 'tether sessions' listing\n" +
			"and by the hooks. A session whose transcript is gone is listed as 'archived' and restored\n" +
			"by 'tether sessions resume' or 'claude --resume' through the wrapper.\n\n" +
			"Examples:\n" +
			"  tether archive status\n" +
			"  tether archive sync\n" +
			"  tether archive prune --older-than 365d --dry-run\n" +
			"  tether archive restore 3f2a",
		Commands: []*cli.Command{a.archiveStatusCommand(), a.archiveSyncCommand(), a.archivePruneCommand(), a.archiveRestoreCommand()},
	}
}

// ---- status

type archiveStatusOptions struct {
	IO    *iostreams.IOStreams
	Store *archive.Store
	// Enabled and ConfigFile describe the configuration.
	Enabled    bool
	ConfigFile string
	Roots      map[string]string
	Now        func() time.Time
	JSON       bool
}

// ArchiveStatus is `tether archive status --json`.
type ArchiveStatus struct {
	Dir          string `json:"dir"`
	Enabled      bool   `json:"enabled"`
	Mode         string `json:"mode"`
	FileSystem   string `json:"fileSystem"`
	Sessions     int    `json:"sessions"`
	ArchivedOnly int    `json:"archivedOnly"`
	Linked       int    `json:"linked"`
	Copied       int    `json:"copied"`
	// DiskBytes is what the archive costs on its own: links to live
	// transcripts share their blocks and count 0.
	DiskBytes int64 `json:"diskBytes"`
	// SameFileSystem says, per harness, whether the archive is on the
	// file system of the agent's data (so links work).
	SameFileSystem map[string]bool `json:"sameFileSystem"`
	// Kept counts the earlier copies kept when a transcript shrank or was
	// rewritten (in KeptDir), KeptBytes their size.
	Kept      int    `json:"kept"`
	KeptBytes int64  `json:"keptBytes"`
	KeptDir   string `json:"keptDir"`
}

func (a *App) archiveStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "what the archive holds: sessions, those only in the archive, bytes on disk, mode, file system",
		Description: "Walks the archive and rewrites its index. 'only in archive' counts sessions whose live\n" +
			"transcript is gone. Bytes on disk count only what the archive costs by itself: a link to a\n" +
			"live transcript shares its blocks and costs nothing.\n\n" +
			"Examples:\n  tether archive status\n  tether archive status --json | jq .archivedOnly",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr(fmt.Errorf("unexpected argument %q", cmd.Args().First()))
			}
			st, enabled, err := a.archiveStore()
			if err != nil {
				return err
			}
			return runArchiveStatus(archiveStatusOptions{IO: a.IO, Store: st, Enabled: enabled, ConfigFile: a.Loc.ConfigFile,
				Roots: hot.HarnessRoots(a.Loc), Now: a.Now, JSON: cmd.Bool("json")})
		},
	}
}

func runArchiveStatus(opts archiveStatusOptions) error {
	ix, err := opts.Store.BuildIndex(opts.Roots, nil, opts.Now())
	if err != nil {
		return fmt.Errorf("read archive %s: %w", opts.Store.Dir, err)
	}
	if len(ix.Entries) > 0 {
		_ = opts.Store.SaveIndex(ix)
	}
	out := ArchiveStatus{Dir: opts.Store.Dir, Enabled: opts.Enabled, Mode: opts.Store.Mode, FileSystem: fsName(opts.Store.Dir),
		SameFileSystem: map[string]bool{}, KeptDir: opts.Store.KeptDir()}
	out.Kept, out.KeptBytes = opts.Store.Kept()
	if out.Mode == "" {
		out.Mode = archive.ModeLink
	}
	for h, root := range opts.Roots {
		out.SameFileSystem[h] = sameDevice(existingParent(opts.Store.Dir), root)
	}
	for _, e := range ix.Entries {
		out.Sessions++
		out.DiskBytes += e.DiskBytes
		if e.LiveGone {
			out.ArchivedOnly++
		}
		if e.Mode == archive.ModeCopy {
			out.Copied++
		} else {
			out.Linked++
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, out)
	}
	w := opts.IO.Out
	state := "enabled"
	if !out.Enabled {
		state = "disabled ([archive] enabled = false in " + termsafe.String(opts.ConfigFile) + ")"
	}
	fmt.Fprintf(w, "archive        %s (%s)\n", termsafe.String(out.Dir), state)
	fmt.Fprintf(w, "mode           %s\n", out.Mode)
	hs := make([]string, 0, len(out.SameFileSystem))
	for h, same := range out.SameFileSystem {
		if same {
			hs = append(hs, h+": same file system (hard links)")
		} else {
			hs = append(hs, h+": another file system (compressed copies)")
		}
	}
	sort.Strings(hs)
	fmt.Fprintf(w, "file system    %s; %s\n", out.FileSystem, strings.Join(hs, "; "))
	fmt.Fprintf(w, "sessions       %d archived (%d linked, %d copied)\n", out.Sessions, out.Linked, out.Copied)
	fmt.Fprintf(w, "only archived  %d (live transcript gone)\n", out.ArchivedOnly)
	fmt.Fprintf(w, "disk           %s of its own\n", humanBytes(out.DiskBytes))
	if out.Kept > 0 {
		fmt.Fprintf(w, "kept           %d earlier %s of transcripts that shrank or were rewritten (%s), in %s\n",
			out.Kept, plural(out.Kept, "copy", "copies"), humanBytes(out.KeptBytes), termsafe.String(out.KeptDir))
	}
	return nil
}

// ---- sync

type archiveSyncOptions struct {
	IO      *iostreams.IOStreams
	Store   *archive.Store
	Roots   map[string]string
	Catalog *catalog.Catalog
	Now     func() time.Time
}

func (a *App) archiveSyncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "archive every transcript now (new ones linked or copied, grown ones refreshed)",
		Description: "Lists every Claude Code and Codex session and brings each one's archived copy up to\n" +
			"date, with a progress line when stderr is a terminal. Listings and hooks do this too;\n" +
			"sync also compresses everything a listing left for later in copy mode.\n\n" +
			"Examples:\n  tether archive sync\n  TETHER_CONFIG=copy.toml tether archive sync   # with [archive] mode = \"copy\"",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr(fmt.Errorf("unexpected argument %q", cmd.Args().First()))
			}
			st, enabled, err := a.archiveStore()
			if err != nil {
				return err
			}
			if !enabled {
				return exitcode.With(exitcode.Refused, fmt.Errorf("the archive is disabled ([archive] enabled = false in %s)", a.Loc.ConfigFile))
			}
			c, err := a.catalogFor("")
			if err != nil {
				return err
			}
			c.Archive = nil // this command archives itself, without a budget
			return runArchiveSync(ctx, archiveSyncOptions{IO: a.IO, Store: st, Roots: hot.HarnessRoots(a.Loc), Catalog: c, Now: a.Now})
		},
	}
}

func runArchiveSync(ctx context.Context, opts archiveSyncOptions) error {
	unlock, ok, err := opts.Store.Lock()
	if err != nil {
		return fmt.Errorf("archive %s: %w", opts.Store.Dir, err)
	}
	if !ok {
		return exitcode.With(exitcode.Refused, fmt.Errorf("another tether is archiving into %s; try again in a moment", opts.Store.Dir))
	}
	defer unlock()
	live, _, err := opts.Catalog.List(ctx, catalog.ListOptions{All: true})
	if err != nil && len(live) == 0 {
		return err
	}
	var progress func(done, total int)
	if opts.IO.StderrTTY {
		last := time.Time{}
		progress = func(done, total int) {
			if now := time.Now(); now.Sub(last) > 100*time.Millisecond || done == total {
				last = now
				fmt.Fprintf(opts.IO.ErrOut, "\rtether: archiving %d/%d sessions", done, total)
			}
		}
	}
	opts.Store.CleanTemps([]string{catalog.ClaudeCode, catalog.Codex}, time.Hour)
	opts.Store.Batch = true
	sum := archiveSessions(opts.Store, opts.Roots, live, progress)
	if err := opts.Store.Flush(); err != nil {
		return fmt.Errorf("archive %s: sync to disk: %w", opts.Store.Dir, err)
	}
	if progress != nil {
		fmt.Fprint(opts.IO.ErrOut, "\r\x1b[K")
	}
	ix, err := opts.Store.BuildIndex(opts.Roots, sum.ids, opts.Now())
	if err == nil {
		err = opts.Store.SaveIndex(ix)
	}
	if err != nil {
		return fmt.Errorf("archive index %s: %w", opts.Store.IndexPath(), err)
	}
	only := 0
	for _, e := range ix.Entries {
		if e.LiveGone {
			only++
		}
	}
	for _, n := range sum.notes {
		fmt.Fprintf(opts.IO.ErrOut, "tether: warning: %s\n", n.text)
	}
	unlinked := ""
	if n := sum.actions[archive.Unlinked]; n > 0 {
		unlinked = fmt.Sprintf(", %d unlinked (changed in place)", n)
	}
	fmt.Fprintf(opts.IO.Out, "archived %d sessions: %d new links, %d re-linked, %d copied, %d appended (%s compressed)%s, %d unchanged; %d only in the archive\n",
		len(ix.Entries), sum.actions[archive.Linked], sum.actions[archive.Relinked], sum.actions[archive.Copied],
		sum.actions[archive.Appended], humanBytes(sum.bytes), unlinked, sum.actions[archive.Unchanged], only)
	if sum.failed > 0 {
		return fmt.Errorf("%d %s could not be archived; first: %s", sum.failed, plural(sum.failed, "transcript", "transcripts"), sum.firstErr)
	}
	return nil
}

// ---- prune

type archivePruneOptions struct {
	IO     *iostreams.IOStreams
	Store  *archive.Store
	Roots  map[string]string
	Older  time.Duration
	DryRun bool
	Now    func() time.Time
}

func (a *App) archivePruneCommand() *cli.Command {
	return &cli.Command{
		Name:  "prune",
		Usage: "delete archived transcripts whose live file is gone and that were last written before DURATION ago",
		Description: "tether never deletes from the archive on its own; this is the only way. Only sessions\n" +
			"that exist nowhere else (their live transcript is gone) are pruned: removing the link of a\n" +
			"live transcript would free nothing. Their last write is the transcript's mtime.\n\n" +
			"Examples:\n  tether archive prune --older-than 365d --dry-run\n  tether archive prune --older-than 180d",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "prune what was last written more than `DURATION` ago (90m, 24h, 365d)", Required: true},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be deleted, delete nothing"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			d, err := parseDuration(cmd.String("older-than"))
			if err != nil {
				return usageErr(fmt.Errorf("--older-than: %w", err))
			}
			st, _, err := a.archiveStore()
			if err != nil {
				return err
			}
			return runArchivePrune(archivePruneOptions{IO: a.IO, Store: st, Roots: hot.HarnessRoots(a.Loc), Older: d,
				DryRun: cmd.Bool("dry-run"), Now: a.Now})
		},
	}
}

func runArchivePrune(opts archivePruneOptions) error {
	unlock, ok, err := opts.Store.Lock()
	if err != nil {
		return err
	}
	if !ok {
		return exitcode.With(exitcode.Refused, fmt.Errorf("another tether is archiving into %s; try again in a moment", opts.Store.Dir))
	}
	defer unlock()
	cutoff := opts.Now().Add(-opts.Older)
	var victims []archive.Entry
	hs := []string{catalog.ClaudeCode, catalog.Codex}
	err = opts.Store.Walk(hs, func(e archive.Entry) {
		live, err := opts.Store.LivePath(e.Harness, e.Stored, opts.Roots[e.Harness])
		if err != nil {
			return
		}
		if _, err := os.Lstat(live); !errors.Is(err, fs.ErrNotExist) {
			return
		}
		if e.LastWrite().Before(cutoff) {
			victims = append(victims, e)
		}
	})
	if err != nil {
		return err
	}
	var freed int64
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	for _, e := range victims {
		if !opts.DryRun {
			if err := opts.Store.Remove(e); err != nil {
				return fmt.Errorf("prune %s: %w", e.Stored, err)
			}
		}
		freed += e.Info.Size()
		fmt.Fprintf(opts.IO.Out, "%s %s (last written %s)\n", verb, termsafe.String(e.Stored), e.LastWrite().Format("2006-01-02"))
	}
	if !opts.DryRun {
		if ix, err := opts.Store.BuildIndex(opts.Roots, nil, opts.Now()); err == nil {
			_ = opts.Store.SaveIndex(ix)
		}
	}
	fmt.Fprintf(opts.IO.ErrOut, "tether: %s %d archived %s, %s\n", verb, len(victims), plural(len(victims), "session", "sessions"), humanBytes(freed))
	return nil
}

// ---- restore

func (a *App) archiveRestoreCommand() *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "put an archived session's transcript back where the agent looks for it, without resuming",
		ArgsUsage: "ID",
		Description: "Restores into the agent's directory (Claude Code: projects/<project>/<id>.jsonl; Codex:\n" +
			"the rollout's original path) through a temporary file and a link, never over an existing\n" +
			"file (exit 4). 'tether sessions resume ID' and the wrapper restore on their own.\n\n" +
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

// ---- hooks

// ---- helpers

// termSafe replaces control and bidi characters, so a path never moves
// the cursor or reorders a terminal line.

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

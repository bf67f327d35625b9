package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/termsafe"
)

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
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		h, root, restoreTo := ag.Name(), roots[ag.Name()], ""
		if _, ok := ag.(agent.Exporter); ok && root == "" {
			// Its exports (<id>.json) mirror no live file: the root
			// only names where the agent keeps its data, and they go
			// back into its database.
			root, restoreTo = ag.Home(), ag.Home()
			if db, ok := ag.(interface{ DB() string }); ok && db.DB() != "" {
				restoreTo = db.DB()
			}
		}
		if (harness == "" || harness == h) && root != "" {
			// The archive's reader reads the stored copies (decoding
			// compressed ones); it lists nothing live.
			r := ag.Sessions(agent.ReaderConfig{Open: catalog.ArchiveOpen, CachePath: catalog.ArchiveCacheFile(a.Loc.CacheDir, h), WorkRules: rules, Windows: a.Windows()})
			ca.Sources = append(ca.Sources, catalog.ArchiveSource{Dir: st.HarnessDir(h), Root: root, Reader: r, RestoreTo: restoreTo})
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

// add counts what storing session s did: res, or the failure err.
func (sum *syncSummary) add(s catalog.Session, res archive.Result, err error) {
	if err != nil {
		sum.failed++
		if sum.firstErr == "" {
			sum.firstErr = err.Error()
		}
		return
	}
	sum.actions[res.Action]++
	sum.bytes += res.Bytes
	sum.ids[res.Stored] = s.ID
	sum.notes = append(sum.notes, archiveNotes(s.ID, s.Source, res)...)
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
		default:
			sum.add(s, res, err)
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

// termSafe replaces control and bidi characters, so a path never moves
// the cursor or reorders a terminal line.

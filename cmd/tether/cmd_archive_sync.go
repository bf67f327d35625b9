package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
)

type archiveSyncOptions struct {
	IO      *iostreams.IOStreams
	Store   *archive.Store
	Roots   map[string]string
	Catalog *catalog.Catalog
	Now     func() time.Time
	// Export archives the sessions of the agents that are exported
	// (Exporters), after the transcripts.
	Export    func(ctx context.Context, live []catalog.Session, sum *syncSummary)
	Exporters map[string]agent.Exporter
}

func (a *App) archiveSyncCommand() *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "archive every transcript now (new ones linked or copied, grown ones refreshed)",
		Description: "Lists every Claude Code and Codex session and brings each one's archived copy up to\n" +
			"date, with a progress line when stderr is a terminal. Listings and hooks do this too;\n" +
			"sync also compresses everything a listing left for later in copy mode.\n" +
			"OpenCode keeps its sessions in a database: sync (and only sync) stores each one's\n" +
			"'opencode export', again when the session's last update or message count changed.\n" +
			"--session exports that one OpenCode session only (what tether's OpenCode plugin\n" +
			"starts in the background when a session ends a turn, at most every 10 minutes);\n" +
			"it waits for another sync to finish.\n\n" +
			"Examples:\n  tether archive sync\n  tether archive sync --session opencode:ses_dcd139480ffeoAscKd2JgtbA1X\n" +
			"  TETHER_CONFIG=copy.toml tether archive sync   # with [archive] mode = \"copy\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "session", Usage: "export only the OpenCode session `[opencode:]ID`"},
		},
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
			if key := cmd.String("session"); cmd.IsSet("session") {
				return a.archiveSyncSession(ctx, st, key)
			}
			c, err := a.catalogFor("")
			if err != nil {
				return err
			}
			c.Archive = nil // this command archives itself, without a budget
			exs := a.exporters()
			export := func(ctx context.Context, live []catalog.Session, sum *syncSummary) {
				a.exportSessions(ctx, st, exs, live, sum)
			}
			return runArchiveSync(ctx, archiveSyncOptions{IO: a.IO, Store: st, Roots: hot.HarnessRoots(a.Loc), Catalog: c, Now: a.Now,
				Export: export, Exporters: exs})
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
	harnesses := []string{catalog.ClaudeCode, catalog.Codex}
	for h := range opts.Exporters {
		harnesses = append(harnesses, h)
	}
	opts.Store.CleanTemps(harnesses, time.Hour)
	opts.Store.Batch = true
	sum := archiveSessions(opts.Store, opts.Roots, live, progress)
	if opts.Export != nil {
		opts.Export(ctx, live, &sum)
	}
	if err := opts.Store.Flush(); err != nil {
		return fmt.Errorf("archive %s: sync to disk: %w", opts.Store.Dir, err)
	}
	if progress != nil {
		fmt.Fprint(opts.IO.ErrOut, "\r\x1b[K")
	}
	ix, err := opts.Store.BuildIndex(opts.Roots, sum.ids, opts.Now())
	if err == nil && opts.Exporters != nil {
		err = indexExports(opts.Store, &ix, opts.Exporters, live)
	}
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
	exported := ""
	if opts.Exporters != nil {
		exported = fmt.Sprintf(", %d exported", sum.actions[archive.Exported])
	}
	fmt.Fprintf(opts.IO.Out, "archived %d sessions: %d new links, %d re-linked, %d copied, %d appended%s (%s compressed)%s, %d unchanged; %d only in the archive\n",
		len(ix.Entries), sum.actions[archive.Linked], sum.actions[archive.Relinked], sum.actions[archive.Copied],
		sum.actions[archive.Appended], exported, humanBytes(sum.bytes), unlinked, sum.actions[archive.Unchanged], only)
	if sum.failed > 0 {
		return fmt.Errorf("%d %s could not be archived; first: %s", sum.failed, plural(sum.failed, "transcript", "transcripts"), sum.firstErr)
	}
	return nil
}

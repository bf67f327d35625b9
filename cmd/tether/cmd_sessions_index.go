package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/searchindex"
)

type sessionsIndexOptions struct {
	sessionsBase
	Index, DataDir string
}

func (a *App) sessionsIndexCommand() *cli.Command {
	return &cli.Command{
		Name:  "index",
		Usage: "bring the search index up to date, and with it the list's message counts",
		Description: "Does what every 'tether sessions search' does first, without a query: reads what\n" +
			"transcripts gained since the last search or index (all of them the first time,\n" +
			"with progress on a terminal) into $XDG_CACHE_HOME/tether/search.db. The index\n" +
			"counts each transcript's messages as it reads it, so the next 'tether sessions\n" +
			"list' shows the MSGS of sessions too long for a list to count (\"-\" before).\n\n" +
			"Examples:\n" +
			"  tether sessions index\n" +
			"  tether sessions index && tether sessions list",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageErr(fmt.Errorf("index takes no arguments, got %q", cmd.Args().First()))
			}
			b, err := a.base("")
			if err != nil {
				return err
			}
			withoutCounts(b.Catalog)
			return runSessionsIndex(ctx, sessionsIndexOptions{sessionsBase: b, Index: searchIndexPath(a.Loc), DataDir: a.Loc.DataDir})
		},
	}
}

func runSessionsIndex(ctx context.Context, opts sessionsIndexOptions) error {
	// The listing collects as a list does; the index update after it
	// may read every transcript (the first build holds ~300 MiB), which
	// the list's 48 MiB soft limit would turn into back-to-back
	// collections: the defaults come back before it.
	restoreGC := listGC()
	all, _, listErr := opts.Catalog.List(ctx, catalog.ListOptions{All: true})
	restoreGC()
	if listErr != nil && len(all) == 0 {
		return listErr
	}
	retain := func(string) bool { return listErr != nil }
	var n int
	var st searchindex.UpdateStats
	err := untilInterrupted(ctx, "index", func() (err error) { n, st, err = indexCount(ctx, opts, all, retain); return err })
	if searchindex.IsCorrupt(err) {
		// A cache: removed, the next index or search builds it anew.
		_ = searchindex.Remove(opts.Index)
	}
	if err != nil {
		return err
	}
	size, _ := searchindex.Size(opts.Index)
	fmt.Fprintf(opts.IO.Out, "indexed %d %s in %s (%s): %d new, %d grown, %d reread, %d removed, %s of transcripts read\n",
		n, plural(n, "session", "sessions"), opts.Index, humanBytes(size), st.Added, st.Appended, st.Reindexed, st.Removed, humanBytes(st.BytesRead))
	return listErr
}

// indexCount updates the index and counts the sessions in it.
func indexCount(ctx context.Context, opts sessionsIndexOptions, all []catalog.Session, retain func(string) bool) (int, searchindex.UpdateStats, error) {
	ix, err := searchindex.Open(opts.Index)
	if err != nil {
		return 0, searchindex.UpdateStats{}, err
	}
	defer ix.Close()
	st, err := updateSearchIndex(ctx, opts.IO, ix, opts.DataDir, all, retain)
	if err != nil {
		return 0, st, err
	}
	n, err := ix.Count(ctx)
	return n, st, err
}

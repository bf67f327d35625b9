package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
)

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

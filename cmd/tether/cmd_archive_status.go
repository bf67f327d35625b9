package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/termsafe"
)

type archiveStatusOptions struct {
	IO    *iostreams.IOStreams
	Store *archive.Store
	// Enabled and ConfigFile describe the configuration.
	Enabled    bool
	ConfigFile string
	Roots      map[string]string
	Now        func() time.Time
	JSON       bool
	// Exporters are the agents archived as exports, Live the sessions
	// they list (an export whose session is not among them is the only
	// copy).
	Exporters map[string]agent.Exporter
	Live      []catalog.Session
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
	// Exported counts the sessions kept as the agent's own export
	// (OpenCode).
	Exported int `json:"exported"`
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
			exs := a.exporters()
			return runArchiveStatus(archiveStatusOptions{IO: a.IO, Store: st, Enabled: enabled, ConfigFile: a.Loc.ConfigFile,
				Roots: hot.HarnessRoots(a.Loc), Now: a.Now, JSON: cmd.Bool("json"), Exporters: exs, Live: a.exportedLive(ctx, exs)})
		},
	}
}

func runArchiveStatus(opts archiveStatusOptions) error {
	ix, err := opts.Store.BuildIndex(opts.Roots, nil, opts.Now())
	if err == nil {
		err = indexExports(opts.Store, &ix, opts.Exporters, opts.Live)
	}
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
		switch e.Mode {
		case archive.ModeExport:
			out.Exported++
		case archive.ModeCopy:
			out.Copied++
		default:
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
	fmt.Fprintf(w, "sessions       %d archived (%d linked, %d copied, %d exported)\n", out.Sessions, out.Linked, out.Copied, out.Exported)
	fmt.Fprintf(w, "only archived  %d (live transcript or session gone)\n", out.ArchivedOnly)
	fmt.Fprintf(w, "disk           %s of its own\n", humanBytes(out.DiskBytes))
	if out.Kept > 0 {
		fmt.Fprintf(w, "kept           %d earlier %s of transcripts that shrank or were rewritten (%s), in %s\n",
			out.Kept, plural(out.Kept, "copy", "copies"), humanBytes(out.KeptBytes), termsafe.String(out.KeptDir))
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/termsafe"
)

// syncLockWait bounds how long `archive sync --session` waits for another
// sync: it runs in the background, and the next one catches up.
const syncLockWait = 2 * time.Minute

// archiveSyncSession is `tether archive sync --session [HARNESS:]ID`: the
// stored export of one session of an exporter brought up to date, the
// session read by its id alone (no listing). The archive's index is left
// to the next full sync: nothing reads an export through it.
func (a *App) archiveSyncSession(ctx context.Context, st *archive.Store, key string) error {
	exs := a.exporters()
	harness, id, err := exportedKey(key, exs)
	if err != nil {
		return usageErr(err)
	}
	s, err := a.findExported(ctx, harness, id)
	if err != nil {
		return err
	}
	unlock, err := waitLock(ctx, st, syncLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	pruneExportStamps(hot.ExportStampDir(a.Loc.StateDir), a.Now())
	sum := syncSummary{actions: map[string]int{}, ids: map[string]string{}}
	a.exportSessions(ctx, st, exs, []catalog.Session{s}, &sum)
	if sum.failed > 0 {
		return fmt.Errorf("session %s could not be exported: %s", s.Key(), sum.firstErr)
	}
	for _, n := range sum.notes {
		fmt.Fprintf(a.IO.ErrOut, "tether: warning: %s\n", n.text)
	}
	action := "unchanged"
	if sum.actions[archive.Exported] > 0 {
		action = "exported"
	}
	fmt.Fprintf(a.IO.Out, "%s %s\n", action, termsafe.String(s.Key()))
	return nil
}

// exportedKey splits [HARNESS:]ID; without a harness it is the one
// exporter there is.
func exportedKey(key string, exs map[string]agent.Exporter) (harness, id string, err error) {
	harness, id, ok := strings.Cut(key, ":")
	if !ok {
		harness, id = "", key
		for h := range exs {
			if len(exs) == 1 {
				harness = h
			}
		}
	}
	if exs[harness] == nil {
		return "", "", fmt.Errorf("--session %q: only OpenCode sessions are exported one by one (Claude Code and Codex transcripts are archived by listings and hooks)", termsafe.String(key))
	}
	if id == "" {
		return "", "", errors.New("--session needs a session id")
	}
	return harness, id, nil
}

// findExported reads session id of harness through its reader, by id.
func (a *App) findExported(ctx context.Context, harness, id string) (catalog.Session, error) {
	for _, ag := range sessionAgents(a.Loc.ClaudeDir, a.Loc.CodexDir, a.Loc) {
		if ag.Name() != harness {
			continue
		}
		f, ok := ag.Sessions(agent.ReaderConfig{}).(agent.Finder)
		if !ok {
			break
		}
		s, found, err := f.Find(ctx, id)
		if err != nil {
			return catalog.Session{}, err
		}
		if !found {
			return catalog.Session{}, exitcode.With(exitcode.NotFound, fmt.Errorf("no %s session %s", harness, termsafe.String(id)))
		}
		return s, nil
	}
	return catalog.Session{}, fmt.Errorf("%s sessions cannot be read by id", harness)
}

// waitLock takes the archive's lock, waiting up to wait for another
// tether that holds it.
func waitLock(ctx context.Context, st *archive.Store, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		unlock, ok, err := st.Lock()
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", st.Dir, err)
		}
		if ok {
			return unlock, nil
		}
		if time.Now().After(deadline) {
			return nil, exitcode.With(exitcode.Refused, fmt.Errorf("another tether is archiving into %s; try again in a moment", st.Dir))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// pruneExportStamps removes the rate limit's stamps (hot.AutoExport) that
// no longer limit anything, so the directory does not grow with every
// session ever seen. Only regular files named as the hook names them go.
func pruneExportStamps(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || now.Sub(fi.ModTime()) < 24*time.Hour {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

package app

import (
	"context"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/shellinit"
)

// catalogIndexEntries lists every session (archived Codex threads aside)
// for the completion index. It is the one place completion depends on the
// session catalog; the catalog's per-file cache keeps a warm refresh to a
// stat per file.
func (a *App) catalogIndexEntries(ctx context.Context) ([]shellinit.IndexEntry, error) {
	c, err := a.catalogFor("")
	if err != nil {
		return nil, err
	}
	ss, _, err := c.List(ctx, catalog.ListOptions{})
	if err != nil && len(ss) == 0 {
		return nil, err
	}
	return indexEntriesOf(ss), nil
}

func indexEntriesOf(ss []catalog.Session) []shellinit.IndexEntry {
	out := make([]shellinit.IndexEntry, 0, len(ss))
	for _, s := range ss {
		if s.Archived {
			continue
		}
		out = append(out, shellinit.IndexEntry{
			Harness: s.Harness, ID: s.ID, LastActivity: s.LastActivity, Root: s.IdentityRoot, Title: s.Title,
		})
	}
	return out
}

// writeCompletionIndex refreshes the completion index from a listing that
// covers every harness, so TAB sees what `tether sessions list` saw. It
// is best effort: a listing never fails because the index could not be
// written.
func (a *App) writeCompletionIndex(ss []catalog.Session) {
	_ = shellinit.WriteIndex(shellinit.IndexPath(a.Loc.CacheDir), indexEntriesOf(ss))
}

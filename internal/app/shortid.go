package app

import (
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/wrap"
)

// indexIDs are the ids of the sessions in the completion index: what the
// last listing saw, read from one small file.
func (a *App) indexIDs() []string {
	entries, err := shellinit.ReadIndex(shellinit.IndexPath(a.Loc.CacheDir))
	if err != nil {
		return nil
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ids
}

// abbrev abbreviates ids where listing the catalog would cost too much
// (the wrapper's notices, its exit line, the log): over the completion
// index and the transcripts in dir ("" for none). See wrap.SiblingAbbrev.
func (a *App) abbrev() func(id, dir string) string {
	return wrap.SiblingAbbrev(a.indexIDs)
}

// knownIDs abbreviates over the completion index, read once on first use.
func (a *App) knownIDs() func(id string) string {
	var ids []string
	read := false
	ab := wrap.SiblingAbbrev(func() []string {
		if !read {
			ids, read = a.indexIDs(), true
		}
		return ids
	})
	return func(id string) string { return ab(id, "") }
}

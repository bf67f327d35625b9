package app

import (
	"github.com/tether-dev/tether/internal/hot"
	"github.com/tether-dev/tether/wrap"
)

// abbrev abbreviates ids over the completion index and the transcripts in
// dir; the wrapper (internal/hot) uses the same.
func (a *App) abbrev() func(id, dir string) string { return hot.Abbrev(a.Loc.CacheDir) }

// knownIDs abbreviates over the completion index, read once on first use.
func (a *App) knownIDs() func(id string) string {
	var ids []string
	read := false
	ab := wrap.SiblingAbbrev(func() []string {
		if !read {
			ids, read = hot.IndexIDs(a.Loc.CacheDir), true
		}
		return ids
	})
	return func(id string) string { return ab(id, "") }
}

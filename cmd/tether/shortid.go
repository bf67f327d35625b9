package main

import (
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/wrap"
)

// knownIDs abbreviates over the completion index, read once on first use.
func (a *App) knownIDs() func(id string) string {
	var ids []string
	read := false
	ab := wrap.SiblingAbbrev(func() []string {
		if !read {
			ids, read = hot.IndexIDs(a.Loc.CacheDir), true
		}
		return ids
	}, nil) // no directory: no agent's transcripts
	return func(id string) string { return ab(id, "") }
}

package hot

import (
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/wrap"
)

// IndexIDs are the ids of the sessions in the completion index under
// cacheDir: what the last listing saw, read from one small file.
func IndexIDs(cacheDir string) []string {
	entries, err := shellinit.ReadIndex(shellinit.IndexPath(cacheDir))
	if err != nil {
		return nil
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return ids
}

// Abbrev abbreviates ids where listing the catalog would cost too much
// (the wrapper's notices, its exit line, the log): over the completion
// index and the transcripts in dir ("" for none). See wrap.SiblingAbbrev.
func Abbrev(cacheDir string) func(id, dir string) string {
	return wrap.SiblingAbbrev(func() []string { return IndexIDs(cacheDir) })
}

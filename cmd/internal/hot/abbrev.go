package hot

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/shellinit/compindex"
	"github.com/tether-dev/tether/wrap"
)

// IndexIDs are the ids of the sessions in the completion index under
// cacheDir: what the last listing saw, read from one small file.
func IndexIDs(cacheDir string) []string {
	entries, err := compindex.Read(compindex.Path(cacheDir))
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
// index and the transcripts in dir ("" for none), which are a's. See
// wrap.SiblingAbbrev.
func Abbrev(cacheDir string, a agent.Agent) func(id, dir string) string {
	return wrap.SiblingAbbrev(func() []string { return IndexIDs(cacheDir) }, a)
}

// IndexNames lists the sessions in the completion index by title, for
// `--resume TITLE`: read only when a --resume value is not an id.
func IndexNames(cacheDir string) func(harness string) []wrap.Named {
	return func(harness string) []wrap.Named {
		entries, err := compindex.Read(compindex.Path(cacheDir))
		if err != nil {
			return nil
		}
		var out []wrap.Named
		for _, e := range entries {
			if e.Harness == harness && e.Title != "" {
				out = append(out, wrap.Named{ID: e.ID, Title: e.Title})
			}
		}
		return out
	}
}

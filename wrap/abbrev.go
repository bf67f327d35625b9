package wrap

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
)

// SiblingAbbrev abbreviates a session id without listing the catalog: its
// shortest unique prefix among known() (the completion index, say) and
// the transcripts in dir, where a session too new for the index is most
// likely to have a twin (Claude's project directory, Codex's day
// directory: UUIDv7 ids from the same minute share eight characters).
// files names the ids of the transcripts in dir (nil when dir is always
// "").
func SiblingAbbrev(known func() []string, files agent.Files) func(id, dir string) string {
	return func(id, dir string) string {
		var ids []string
		if known != nil {
			ids = known()
		}
		ids = append(ids, transcriptIDs(dir, files)...)
		return identity.NewAbbreviator(ids).Short(id)
	}
}

// transcriptIDs are the session ids of the files *.jsonl in dir: as
// files names a transcript's (Claude's <id>.jsonl, Codex's
// rollout-<time>-<id>.jsonl), else the name without .jsonl.
func transcriptIDs(dir string, files agent.Files) []string {
	if dir == "" || dir == "." || files == nil {
		return nil
	}
	ents, _ := os.ReadDir(dir)
	ids := make([]string, 0, len(ents))
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			continue
		}
		if id := files.SessionIDOf(filepath.Join(dir, e.Name())); id != "" {
			name = id
		}
		ids = append(ids, name)
	}
	return ids
}

// short names a session in a message.
func (o Options) short(id string, tr transcript) string {
	if o.Abbrev == nil {
		return identity.ShortID(id)
	}
	dir := ""
	if tr.path != "" {
		dir = filepath.Dir(tr.path)
	}
	return o.Abbrev(id, dir)
}

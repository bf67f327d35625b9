package opencodesessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/atomicfile"
)

// ArchiveReader reads the sessions tether's archive keeps as OpenCode's
// own exports (`opencode export ID`: {info, messages: [{info, parts}]}),
// one file per session, so a session OpenCode deleted is still listed,
// shown and summarized. The rows of an export are folded exactly as the
// database's are (the listing's row, Get's fold), so a session reads the
// same from either.
type ArchiveReader struct {
	// Open opens a stored export (decoding the archive's compression).
	Open agent.Opener
	// CachePath keeps what Describe found per file ("": no cache): a
	// listing then reads only the exports that changed.
	CachePath string
	Windows   agent.Windows
	WorkRules []agent.WorkRule

	cache *describeCache
}

// Harness implements agent.Reader.
func (*ArchiveReader) Harness() string { return agent.OpenCode }

// List implements agent.Reader: the archive's sessions are found by the
// catalog's walk of the store (Describe), not listed here.
func (*ArchiveReader) List(context.Context, agent.ListOptions) ([]agent.Session, []agent.Diagnostic, error) {
	return nil, nil, nil
}

// maxArchived caps an export read back: as the export itself is capped.
const maxArchived = 1 << 30

// read is the export stored at path.
func (r *ArchiveReader) read(path string) ([]byte, os.FileInfo, error) {
	f, err := r.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxArchived+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxArchived {
		return nil, nil, fmt.Errorf("larger than %d MiB", maxArchived>>20)
	}
	return data, fi, nil
}

// Describe is the session of the export stored at path, or why there is
// none (the catalog's describer).
func (r *ArchiveReader) Describe(path string) (agent.Session, string) {
	st, err := os.Stat(path)
	if err != nil {
		return agent.Session{}, "unreadable: " + err.Error()
	}
	c := r.loadCache()
	if s, ok := c.get(path, st); ok {
		return s, ""
	}
	data, _, err := r.read(path)
	if err != nil {
		return agent.Session{}, "unreadable: " + err.Error()
	}
	w, why := exportRow(data)
	if why != "" {
		return agent.Session{}, why
	}
	lr := &Reader{Windows: r.Windows}
	s := lr.session(&w, nil)
	s.Source = path
	c.put(path, st, s)
	return s, ""
}

// Get implements agent.Reader: the export's messages and parts, folded
// as Reader.Get folds the database's.
func (r *ArchiveReader) Get(ctx context.Context, s agent.Session) (agent.Session, error) {
	data, _, err := r.read(s.Source)
	if err != nil {
		return s, fmt.Errorf("archived opencode session %s: %w", s.ID, err)
	}
	if _, why := exportRow(data); why != "" {
		return s, fmt.Errorf("archived opencode session %s: %s: %s", s.ID, s.Source, why)
	}
	f := newFold(s, r.WorkRules)
	for _, m := range gjson.GetBytes(data, "messages").Array() {
		info := m.Get("info")
		id := info.Get("id").String()
		var created *int64
		if c := info.Get("time.created"); c.Exists() {
			n := c.Int()
			created = &n
		}
		parts := m.Get("parts").Array()
		if len(parts) == 0 {
			f.add(id, info.Raw, created, nil)
		}
		for _, p := range parts {
			raw := p.Raw
			f.add(id, info.Raw, created, &raw)
		}
	}
	return f.finish(ctx, &Reader{Windows: r.Windows}), nil
}

// exportRow is the export data as the listing's row of its session, or
// why it is not an export. An export is the JSON storage's session file
// and its messages with their parts in one object, so it adds up as
// those do.
func exportRow(data []byte) (row, string) {
	if !gjson.ValidBytes(data) {
		return row{}, "not JSON (an OpenCode export is one JSON object)"
	}
	root := gjson.ParseBytes(data)
	info := root.Get("info")
	if info.Get("id").Type != gjson.String || info.Get("directory").Type != gjson.String || !root.Get("messages").IsArray() {
		return row{}, "not an OpenCode export (no info.id, info.directory or messages)"
	}
	w := infoRow(info, "")
	var msgs []legacyMessage
	for _, m := range root.Get("messages").Array() {
		mi := m.Get("info")
		lm := legacyMessage{id: mi.Get("id").String(), data: mi.Raw, created: mi.Get("time.created").Int()}
		for _, p := range m.Get("parts").Array() {
			lm.parts = append(lm.parts, p.Raw)
		}
		msgs = append(msgs, lm)
	}
	w.addMessages(msgs)
	return w, ""
}

// SaveCache writes what Describe found (the catalog calls it after a
// listing); entries of files not described in this run are dropped.
func (r *ArchiveReader) SaveCache() error {
	if c := r.cache; c == nil || r.CachePath == "" || !c.dirty && len(c.seen) == len(c.old) {
		return nil
	}
	data, err := json.Marshal(describeFile{Version: describeVersion, Entries: r.cache.seen})
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(r.CachePath, data, atomicfile.Options{Perm: 0o600})
}

// describeVersion changes when what Describe makes of an export does.
const describeVersion = 1

type describeFile struct {
	Version int                      `json:"version"`
	Entries map[string]describeEntry `json:"entries"`
}

type describeEntry struct {
	Size    int64         `json:"size"`
	MTime   int64         `json:"mtime"`
	Session agent.Session `json:"session"`
}

// describeCache is the cache file's entries, and those used in this run.
type describeCache struct {
	old, seen map[string]describeEntry
	dirty     bool
}

func (r *ArchiveReader) loadCache() *describeCache {
	if r.cache != nil {
		return r.cache
	}
	r.cache = &describeCache{old: map[string]describeEntry{}, seen: map[string]describeEntry{}}
	if r.CachePath == "" {
		return r.cache
	}
	var f describeFile
	if data, err := os.ReadFile(r.CachePath); err == nil && json.Unmarshal(data, &f) == nil && f.Version == describeVersion && f.Entries != nil {
		r.cache.old = f.Entries
	} else if !errors.Is(err, os.ErrNotExist) {
		r.cache.dirty = true // unreadable or stale: rewritten
	}
	return r.cache
}

func (c *describeCache) get(path string, st os.FileInfo) (agent.Session, bool) {
	e, ok := c.old[path]
	if !ok || e.Size != st.Size() || e.MTime != st.ModTime().UnixNano() {
		return agent.Session{}, false
	}
	c.seen[path] = e
	return e.Session, true
}

func (c *describeCache) put(path string, st os.FileInfo, s agent.Session) {
	c.seen[path] = describeEntry{Size: st.Size(), MTime: st.ModTime().UnixNano(), Session: s}
	c.dirty = true
}

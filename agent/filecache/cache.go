// Package filecache is the agents' session readers' cache: what a reader
// learned from each file, keyed by (path, size, mtime), so a warm list
// does one stat per file (or none, under a directory skip); the records
// of the directories it listed; and keyed records of the reader's own
// (Codex: its state database's rows). It knows no agent: each reader
// gives the Codec of its values.
package filecache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/bincodec"
	"github.com/tether-dev/tether/internal/safeio"
)

// Codec is how a reader's values (T) and records (R) are kept in its
// cache file.
type Codec[T, R any] struct {
	// Kind names the values and their encoding (the agent and a version
	// of its own): a file written with another Kind is not read.
	Kind string
	Put  func(w *bincodec.Writer, v *T)
	Get  func(r *bincodec.Reader) T
	// SetCount records a message count in a value (the search index's,
	// for a file a list could not count).
	SetCount func(v *T, mc agent.MessageCount)
	// PutRecord and GetRecord encode the records; nil when the reader
	// keeps none.
	PutRecord func(w *bincodec.Writer, r *R)
	GetRecord func(r *bincodec.Reader) R
}

// NoRecords is the record type of a reader that keeps none.
type NoRecords struct{}

// Cache remembers what a reader learned from a file, keyed by (path, size,
// mtime), so a warm list does one stat per file. It holds prompt-derived
// text (titles, prompts), so the file is created 0600. A nil *Cache is a
// valid, disabled cache.
type Cache[T, R any] struct {
	path  string
	codec *Codec[T, R]
	mu    sync.Mutex
	// entries are pointers so a lookup marks its entry seen (see Save)
	// without a second map: 10,000 paths hashed again cost a warm list
	// ~5 ms.
	entries map[string]*entry[T]
	dirs    map[string]DirRecord
	dirSeen map[string]bool
	// recs are the reader's own records, by key.
	recs map[string]*record[R]
	// stamp is the CountIndex stamp counts were last taken at.
	stamp string
	dirty bool
}

// entry holds one value (V, never nil) for a file at Size and MTime.
type entry[T any] struct {
	Size, MTime int64
	V           *T
	// seen: looked up or stored since Open (not stored).
	seen bool
}

// record is one of the reader's records.
type record[R any] struct {
	V    R
	seen bool
}

// DirRecord is what a list learned about one directory of transcripts,
// so the next list can skip listing it and stat-ing its files (see the
// directory skip in agent/scan for when it is trusted).
type DirRecord struct {
	// MTime is the directory's mtime before it was read: creating,
	// removing or renaming a file in it changes it.
	MTime int64
	// Checked is when the directory was last read and its files stat-ed.
	Checked int64
	// Newest is the newest mtime among its transcripts.
	Newest int64
	// Files are the transcripts' names.
	Files []string
}

// Open loads the cache at path. A missing, unreadable or outdated file
// gives an empty cache: the cache is only ever an optimisation.
//
// The file is read and decoded in the background (~7 ms of CPU for 10,000
// sessions): the cache is locked until it is loaded, so every method waits
// for it, and caches of several readers decode in parallel with each
// other and with what the caller does before its first lookup.
func Open[T, R any](path string, codec *Codec[T, R]) *Cache[T, R] {
	c := &Cache[T, R]{path: path, codec: codec}
	c.reset()
	c.mu.Lock() // unlocked by load: a sync.Mutex may be unlocked by another goroutine
	go c.load()
	return c
}

func (c *Cache[T, R]) reset() {
	c.entries, c.dirs, c.dirSeen, c.recs, c.stamp = map[string]*entry[T]{}, map[string]DirRecord{}, map[string]bool{}, map[string]*record[R]{}, ""
}

// Path is the cache's file.
func (c *Cache[T, R]) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// load decodes the file into c and unlocks it. The file is read into one
// buffer, which the decoded strings share (never a mapping of the file: a
// file truncated in place under a mapping faults at the next read of a
// string). A FIFO or a link planted as the cache is not read.
func (c *Cache[T, R]) load() {
	defer c.mu.Unlock()
	// A background goroutine: a panic would end the process (and leave
	// a picker's terminal raw). A cache that cannot be decoded is empty.
	defer func() {
		if recover() != nil {
			c.reset()
		}
	}()
	data, err := safeio.ReadOwn(c.path)
	if err != nil {
		return
	}
	if f, err := decode(data, c.codec); err == nil {
		c.entries, c.dirs, c.recs, c.stamp = f.entries, f.dirs, f.recs, f.stamp
	}
}

// Lookup sets *v to the entry for path when size and mtime still match.
func (c *Cache[T, R]) Lookup(path string, size int64, mtime time.Time, v *T) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil {
		return false
	}
	e.seen = true
	if e.Size != size || e.MTime != mtime.UnixNano() {
		return false
	}
	*v = *e.V
	return true
}

// LookupAny sets *v to the entry for path whatever the file's size and
// mtime now, and returns the entry's mtime (UnixNano): for files of a
// directory the caller has established as unchanged.
func (c *Cache[T, R]) LookupAny(path string, v *T) (int64, bool) {
	_, mtime, ok := c.LookupSized(path, v)
	return mtime, ok
}

// LookupSized is LookupAny that also returns the entry's size.
func (c *Cache[T, R]) LookupSized(path string, v *T) (size, mtime int64, ok bool) {
	p, size, mtime, ok := c.Peek(path)
	if ok {
		*v = *p
	}
	return size, mtime, ok
}

// Peek is LookupSized returning the cached value itself, not a copy. The
// caller must not change it (the cache never does: Store and FillCounts
// replace it).
func (c *Cache[T, R]) Peek(path string) (v *T, size, mtime int64, ok bool) {
	if c == nil {
		return nil, 0, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil {
		return nil, 0, 0, false
	}
	e.seen = true
	return e.V, e.Size, e.MTime, true
}

// Store records v for path at this size and mtime.
func (c *Cache[T, R]) Store(path string, size int64, mtime time.Time, v T) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[path] = &entry[T]{Size: size, MTime: mtime.UnixNano(), V: &v, seen: true}
	c.dirty = true
}

// Dir returns the record of directory dir, if any.
func (c *Cache[T, R]) Dir(dir string) (DirRecord, bool) {
	if c == nil {
		return DirRecord{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.dirs[dir]
	if ok {
		c.dirSeen[dir] = true
	}
	return d, ok
}

// StoreDir records what a list learned about directory dir.
func (c *Cache[T, R]) StoreDir(dir string, d DirRecord) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirSeen[dir] = true
	old, ok := c.dirs[dir]
	if ok && old.MTime == d.MTime && old.Checked == d.Checked && old.Newest == d.Newest && slices.Equal(old.Files, d.Files) {
		return
	}
	c.dirs[dir] = d
	c.dirty = true
}

// Record returns the record kept under key, marking it still in use. The
// caller must not change it (StoreRecord replaces it).
func (c *Cache[T, R]) Record(key string) (*R, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.recs[key]
	if rec == nil {
		return nil, false
	}
	rec.seen = true
	return &rec.V, true
}

// StoreRecord keeps r under key.
func (c *Cache[T, R]) StoreRecord(key string, r R) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs[key] = &record[R]{V: r, seen: true}
	c.dirty = true
}

// Save drops entries for files not seen since Open (deleted sessions) and
// writes the cache atomically, mode 0600.
func (c *Cache[T, R]) Save() error {
	if c == nil || c.path == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, e := range c.entries {
		if !e.seen {
			delete(c.entries, p)
			c.dirty = true
		}
	}
	for d := range c.dirs {
		if !c.dirSeen[d] {
			delete(c.dirs, d)
			c.dirty = true
		}
	}
	for k, rec := range c.recs {
		if !rec.seen {
			delete(c.recs, k)
			c.dirty = true
		}
	}
	if !c.dirty {
		return nil
	}
	data := encode(c)
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(c.path, data, atomicfile.Options{Perm: 0o600}); err != nil {
		return err
	}
	c.dirty = false
	if legacy, ok := strings.CutSuffix(c.path, ".gob"); ok {
		_ = os.Remove(legacy + ".json") // version 1's cache, superseded
	}
	return nil
}

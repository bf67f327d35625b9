package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
)

// cacheVersion changes whenever what readers store changes shape or
// meaning; an old cache is then ignored, never misread.
// 2: gob instead of JSON (a warm list of 10,000 sessions spent 290 ms
// decoding JSON; gob decodes the whole file in one pass, typed).
// 3: typed values instead of interfaces (gob spent most of a warm list's
// 40 ms decode on interface type names) and directory records.
// 4: message counts (msgState) in the summaries, and the search index's
// stamp they were last filled from.
// 5: a hand-written encoding (cachecodec.go) instead of gob, with a
// checksum (gob's decode of 10,000 summaries was ~35 ms of a warm list),
// and the Codex state database's rows (codex_threads.go).
// The files keep their .gob names: a version-4 file is not this format's
// magic, so it is ignored and replaced by the next listing.
const cacheVersion = 5

// Cache remembers what a reader learned from a file, keyed by (path, size,
// mtime), so a warm list does one stat per file. It holds prompt-derived
// text (titles, prompts), so the file is created 0600. A nil *Cache is a
// valid, disabled cache.
type Cache struct {
	path string
	mu   sync.Mutex
	// entries are pointers so a lookup marks its entry seen (see Save)
	// without a second map: 10,000 paths hashed again cost a warm list
	// ~5 ms.
	entries map[string]*cacheEntry
	dirs    map[string]dirRecord
	dirSeen map[string]bool
	// dbs are the Codex reader's state database rows, by database.
	dbs map[string]*threadsRecord
	// stamp is the CountIndex stamp counts were last taken at.
	stamp string
	dirty bool
}

// cacheEntry holds one of the readers' value types (typed fields, not an
// interface: the encoding names the kind in one byte).
type cacheEntry struct {
	Size, MTime int64
	Claude      *claudeSummary
	Codex       *codexTail
	// seen: looked up or stored since OpenCache (not stored).
	seen bool
}

// value returns the stored value as an interface.
func (e cacheEntry) value() any {
	switch {
	case e.Claude != nil:
		return *e.Claude
	case e.Codex != nil:
		return *e.Codex
	}
	return nil
}

// setValue stores v; it reports false for a type the cache does not hold.
func (e *cacheEntry) setValue(v any) bool {
	switch v := v.(type) {
	case claudeSummary:
		e.Claude = &v
	case codexTail:
		e.Codex = &v
	default:
		return false
	}
	return true
}

// dirRecord is what a list learned about one directory of transcripts,
// so the next list can skip listing it and stat-ing its files (see
// ClaudeReader.List for when it is trusted).
type dirRecord struct {
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

type cacheFile struct {
	Version int
	Entries map[string]*cacheEntry
	Dirs    map[string]dirRecord
	DBs     map[string]*threadsRecord
	// CountStamp is the CountIndex stamp counts were last taken at.
	CountStamp string
}

// OpenCache loads the cache at path. A missing, unreadable or outdated
// file gives an empty cache: the cache is only ever an optimisation.
//
// The file is read and decoded in the background (~7 ms of CPU for 10,000
// sessions): the cache is locked until it is loaded, so every method waits
// for it, and caches of several readers decode in parallel with each
// other and with what the caller does before its first lookup.
func OpenCache(path string) *Cache {
	c := &Cache{path: path, entries: map[string]*cacheEntry{}, dirs: map[string]dirRecord{}, dirSeen: map[string]bool{},
		dbs: map[string]*threadsRecord{}}
	c.mu.Lock() // unlocked by load: a sync.Mutex may be unlocked by another goroutine
	go c.load()
	return c
}

// load decodes the file into c and unlocks it. The file is read into one
// buffer, which the decoded strings share (never a mapping of the file: a
// file truncated in place under a mapping faults at the next read of a
// string). A FIFO or a link planted as the cache is not read.
func (c *Cache) load() {
	defer c.mu.Unlock()
	// A background goroutine: a panic would end the process (and leave
	// a picker's terminal raw). A cache that cannot be decoded is empty.
	defer func() {
		if recover() != nil {
			c.entries, c.dirs, c.dbs, c.stamp = map[string]*cacheEntry{}, map[string]dirRecord{}, map[string]*threadsRecord{}, ""
		}
	}()
	data, err := safeio.ReadOwn(c.path)
	if err != nil {
		return
	}
	if f, err := decodeCache(data); err == nil {
		c.entries, c.dirs, c.dbs, c.stamp = f.Entries, f.Dirs, f.DBs, f.CountStamp
	}
}

// Lookup sets *v to the entry for path when size and mtime still match
// and the entry holds a value of v's type.
func (c *Cache) Lookup(path string, size int64, mtime time.Time, v any) bool {
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
	return setFrom(v, e)
}

// LookupAny sets *v to the entry for path whatever the file's size and
// mtime now, and returns the entry's mtime (UnixNano): for files of a
// directory the caller has established as unchanged.
func (c *Cache) LookupAny(path string, v any) (int64, bool) {
	_, mtime, ok := c.lookupAny(path, v)
	return mtime, ok
}

// lookupAny is LookupAny that also returns the entry's size.
func (c *Cache) lookupAny(path string, v any) (size, mtime int64, ok bool) {
	if c == nil {
		return 0, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil || !setFrom(v, e) {
		return 0, 0, false
	}
	e.seen = true
	return e.Size, e.MTime, true
}

// claudeAny is lookupAny of a Claude Code summary that returns the cached
// value itself, not a copy. The caller must not change it (the cache
// never does: Store and withMsgState replace it).
func (c *Cache) claudeAny(path string) (sum *claudeSummary, size, mtime int64, ok bool) {
	if c == nil {
		return nil, 0, 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil || e.Claude == nil {
		return nil, 0, 0, false
	}
	e.seen = true
	return e.Claude, e.Size, e.MTime, true
}

func setFrom(v any, e *cacheEntry) bool {
	// The common cases without reflection.
	switch v := v.(type) {
	case *claudeSummary:
		if e.Claude != nil {
			*v = *e.Claude
		}
		return e.Claude != nil
	case *codexTail:
		if e.Codex != nil {
			*v = *e.Codex
		}
		return e.Codex != nil
	}
	dst, src := reflect.ValueOf(v), reflect.ValueOf(e.value())
	if dst.Kind() != reflect.Pointer || !src.IsValid() || src.Type() != dst.Elem().Type() {
		return false
	}
	dst.Elem().Set(src)
	return true
}

func (c *Cache) countStamp() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stamp
}

func (c *Cache) setCountStamp(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s != c.stamp {
		c.stamp, c.dirty = s, true
	}
}

// withMsgState asks look for the count of path's file at the size and
// mtime of its entry and records it there.
func (c *Cache) withMsgState(path string, look CountLookup) (MessageCount, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[path]
	if e == nil {
		return MessageCount{}, false
	}
	mc, ok := look(path, e.Size, e.MTime)
	if !ok {
		return MessageCount{}, false
	}
	switch {
	case e.Claude != nil:
		v := *e.Claude
		v.Msgs.Known, v.Msgs.Count = true, mc
		e.Claude = &v
	case e.Codex != nil:
		v := *e.Codex
		v.Msgs.Known, v.Msgs.Count = true, mc
		e.Codex = &v
	default:
		return MessageCount{}, false
	}
	c.dirty = true
	return mc, true
}

// Dir returns the record of directory dir, if any.
func (c *Cache) Dir(dir string) (dirRecord, bool) {
	if c == nil {
		return dirRecord{}, false
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
func (c *Cache) StoreDir(dir string, d dirRecord) {
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

// Store records v (a value of a registered type, not a pointer) for path
// at this size and mtime.
func (c *Cache) Store(path string, size int64, mtime time.Time, v any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cacheEntry{Size: size, MTime: mtime.UnixNano(), seen: true}
	if e.setValue(v) {
		c.entries[path] = e
		c.dirty = true
	} else if old := c.entries[path]; old != nil {
		old.seen = true
	}
}

// Save drops entries for files not seen since OpenCache (deleted
// sessions) and writes the cache atomically, mode 0600.
func (c *Cache) Save() error {
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
	for db, rec := range c.dbs {
		if !rec.seen {
			delete(c.dbs, db)
			c.dirty = true
		}
	}
	if !c.dirty {
		return nil
	}
	data := encodeCache(cacheFile{Version: cacheVersion, Entries: c.entries, Dirs: c.dirs, DBs: c.dbs, CountStamp: c.stamp})
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

// CacheFiles are the cache files readers keep under dir; ClearCache
// removes them.
func CacheFiles(dir string) []string {
	return []string{filepath.Join(dir, "catalog-claude-code.gob"), filepath.Join(dir, "catalog-codex.gob")}
}

// legacyCacheFiles are the JSON caches of cache version 1.
func legacyCacheFiles(dir string) []string {
	return []string{filepath.Join(dir, "catalog-claude-code.json"), filepath.Join(dir, "catalog-codex.json")}
}

// ClearCache removes the catalog's cache files under dir and reports how
// many existed.
func ClearCache(dir string) (int, error) {
	n := 0
	for _, p := range legacyCacheFiles(dir) {
		_ = os.Remove(p) // superseded; not counted
	}
	for _, p := range append(CacheFiles(dir), ArchiveCacheFiles(dir)...) {
		err := os.Remove(p)
		if err == nil {
			n++
		} else if !isNotExist(err) {
			return n, err
		}
	}
	return n, nil
}

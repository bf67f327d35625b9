package catalog

import (
	"bytes"
	"encoding/gob"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// cacheVersion changes whenever what readers store changes shape or
// meaning; an old cache is then ignored, never misread.
// 2: gob instead of JSON (a warm list of 10,000 sessions spent 290 ms
// decoding JSON; gob decodes the whole file in one pass, typed).
const cacheVersion = 2

// registerGob registers the value types readers store. It runs on first
// use, not at init: registering builds gob's type descriptions (about 2 ms),
// which every tether process (hooks, the prompt) would otherwise pay.
var registerGob = sync.OnceFunc(func() {
	gob.Register(claudeSummary{})
	gob.Register(codexTail{})
})

// Cache remembers what a reader learned from a file, keyed by (path, size,
// mtime), so a warm list does one stat per file. It holds prompt-derived
// text (titles, prompts), so the file is created 0600. A nil *Cache is a
// valid, disabled cache.
type Cache struct {
	path    string
	mu      sync.Mutex
	entries map[string]cacheEntry
	seen    map[string]bool
	dirty   bool
}

type cacheEntry struct {
	Size, MTime int64
	V           any
}

type cacheFile struct {
	Version int
	Entries map[string]cacheEntry
}

// OpenCache loads the cache at path. A missing, unreadable or outdated
// file gives an empty cache: the cache is only ever an optimisation.
func OpenCache(path string) *Cache {
	c := &Cache{path: path, entries: map[string]cacheEntry{}, seen: map[string]bool{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f cacheFile
	registerGob()
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil && f.Version == cacheVersion && f.Entries != nil {
		c.entries = f.Entries
	}
	return c
}

// Lookup sets *v to the entry for path when size and mtime still match
// and the entry holds a value of v's type.
func (c *Cache) Lookup(path string, size int64, mtime time.Time, v any) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[path] = true
	e, ok := c.entries[path]
	if !ok || e.Size != size || e.MTime != mtime.UnixNano() {
		return false
	}
	dst, src := reflect.ValueOf(v), reflect.ValueOf(e.V)
	if dst.Kind() != reflect.Pointer || !src.IsValid() || src.Type() != dst.Elem().Type() {
		return false
	}
	dst.Elem().Set(src)
	return true
}

// Store records v (a value of a registered type, not a pointer) for path
// at this size and mtime.
func (c *Cache) Store(path string, size int64, mtime time.Time, v any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[path] = true
	c.entries[path] = cacheEntry{Size: size, MTime: mtime.UnixNano(), V: v}
	c.dirty = true
}

// Save drops entries for files not seen since OpenCache (deleted
// sessions) and writes the cache atomically, mode 0600.
func (c *Cache) Save() error {
	if c == nil || c.path == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.entries {
		if !c.seen[p] {
			delete(c.entries, p)
			c.dirty = true
		}
	}
	if !c.dirty {
		return nil
	}
	var buf bytes.Buffer
	registerGob()
	if err := gob.NewEncoder(&buf).Encode(cacheFile{Version: cacheVersion, Entries: c.entries}); err != nil {
		return err
	}
	data := buf.Bytes()
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

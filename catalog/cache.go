package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// cacheVersion changes whenever what readers store changes shape or
// meaning; an old cache is then ignored, never misread.
const cacheVersion = 1

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
	Size  int64           `json:"size"`
	MTime int64           `json:"mtime"`
	Data  json.RawMessage `json:"data"`
}

type cacheFile struct {
	Version int                   `json:"version"`
	Entries map[string]cacheEntry `json:"entries"`
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
	if json.Unmarshal(data, &f) == nil && f.Version == cacheVersion && f.Entries != nil {
		c.entries = f.Entries
	}
	return c
}

// Lookup decodes the entry for path into v when size and mtime still match.
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
	return json.Unmarshal(e.Data, v) == nil
}

// Store records v for path at this size and mtime.
func (c *Cache) Store(path string, size int64, mtime time.Time, v any) {
	if c == nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[path] = true
	c.entries[path] = cacheEntry{Size: size, MTime: mtime.UnixNano(), Data: data}
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
	data, err := json.Marshal(cacheFile{Version: cacheVersion, Entries: c.entries})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(c.path, data, atomicfile.Options{Perm: 0o600}); err != nil {
		return err
	}
	c.dirty = false
	return nil
}

// CacheFiles are the cache files readers keep under dir; ClearCache
// removes them.
func CacheFiles(dir string) []string {
	return []string{filepath.Join(dir, "catalog-claude-code.json"), filepath.Join(dir, "catalog-codex.json")}
}

// ClearCache removes the catalog's cache files under dir and reports how
// many existed.
func ClearCache(dir string) (int, error) {
	n := 0
	for _, p := range CacheFiles(dir) {
		err := os.Remove(p)
		if err == nil {
			n++
		} else if !isNotExist(err) {
			return n, err
		}
	}
	return n, nil
}

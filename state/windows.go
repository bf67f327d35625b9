package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
)

// WindowFile is an agent.WindowMemory kept in a small JSON file (model → tokens).
// An unreadable or corrupt file remembers nothing; it is rewritten whole.
type WindowFile struct{ Path string }

func (f WindowFile) load() map[string]int64 {
	m := map[string]int64{}
	if f.Path == "" {
		return m
	}
	data, err := safeio.ReadOwn(f.Path)
	if err != nil {
		return m
	}
	if json.Unmarshal(data, &m) != nil {
		return map[string]int64{}
	}
	return m
}

// Window implements WindowMemory, reading the file on every call.
func (f WindowFile) Window(model string) int64 { return f.load()[model] }

// Cached is the file as a WindowMemory read at most once, on first use:
// the catalog asks for thousands of sessions, and a hook that needs no
// window (a tool event) never reads it.
func (f WindowFile) Cached() *CachedWindows { return &CachedWindows{file: f} }

// CachedWindows is WindowFile read once (see Cached).
type CachedWindows struct {
	mu   sync.Mutex
	file WindowFile
	m    map[string]int64
}

func (c *CachedWindows) loaded() map[string]int64 {
	if c.m == nil {
		c.m = c.file.load()
	}
	return c.m
}

// Window implements WindowMemory.
func (c *CachedWindows) Window(model string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loaded()[model]
}

// Remember is WindowFile.Remember on the cached read: the statusLine
// remembers the window it was given, then looks windows up, and reads the
// file once for both.
func (c *CachedWindows) Remember(model string, window int64) error {
	if c.file.Path == "" || model == "" || window <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.loaded()
	if m[model] == window {
		return nil
	}
	next := make(map[string]int64, len(m)+1)
	for k, v := range m {
		next[k] = v
	}
	next[model] = window
	if err := c.file.save(next); err != nil {
		return err
	}
	c.m = next
	return nil
}

// Remember stores the window reported for model. It writes only when the
// value changed: the statusLine runs after every assistant message.
func (f WindowFile) Remember(model string, window int64) error {
	if f.Path == "" || model == "" || window <= 0 {
		return nil
	}
	m := f.load()
	if m[model] == window {
		return nil
	}
	m[model] = window
	return f.save(m)
}

func (f WindowFile) save(m map[string]int64) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return atomicfile.WriteBytes(f.Path, append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

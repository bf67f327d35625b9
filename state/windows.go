package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/atomicfile"
)

// WindowFile is an agent.WindowMemory kept in a small JSON file (model → tokens).
// An unreadable or corrupt file remembers nothing; it is rewritten whole.
type WindowFile struct{ Path string }

func (f WindowFile) load() map[string]int64 {
	m := map[string]int64{}
	if f.Path == "" {
		return m
	}
	data, err := os.ReadFile(f.Path)
	if err != nil || json.Unmarshal(data, &m) != nil {
		return map[string]int64{}
	}
	return m
}

// Window implements WindowMemory, reading the file on every call.
func (f WindowFile) Window(model string) int64 { return f.load()[model] }

// Cached is the file as a WindowMemory read at most once, on first use:
// the catalog asks for thousands of sessions, and a hook that needs no
// window (a tool event) never reads it.
func (f WindowFile) Cached() agent.WindowMemory { return &cachedWindows{file: f} }

type cachedWindows struct {
	once sync.Once
	file WindowFile
	m    map[string]int64
}

func (c *cachedWindows) Window(model string) int64 {
	c.once.Do(func() { c.m = c.file.load() })
	return c.m[model]
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
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return atomicfile.WriteBytes(f.Path, append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

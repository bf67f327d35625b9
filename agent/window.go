package agent

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// DefaultWindow is the context window assumed when nothing better is
// known.
const DefaultWindow = 200_000

// Where a window came from, strongest first.
const (
	SourceStatusline = "statusline" // Claude Code's statusLine reported it
	SourceTranscript = "transcript" // the transcript recorded it (Codex)
	SourceConfig     = "config"     // [hooks.windows] in tether's config
	SourceModel      = "model"      // the built-in table below
	SourceDefault    = "default"    // DefaultWindow: nothing is known
)

// builtinWindows are the windows observed for model ids (longest prefix
// wins). Only what a real statusLine reported is here: Claude Code
// 2.1.332 reported 1,000,000 for claude-opus-5-5. Nothing was observed for
// claude-opus-5-1, so it gets DefaultWindow until its statusLine reports
// (and tether remembers) more. Ids ending in "[1m]" select the 1M-token
// variant of any model.
var builtinWindows = map[string]int64{
	"claude-opus-5-5": 1_000_000,
}

// WindowMemory remembers the window the statusLine last reported per
// model, so sessions without a statusLine (or without one yet) use it.
type WindowMemory interface {
	Window(model string) int64
}

// Windows is the one answer to "how big is this model's context window",
// for every command that shows or acts on a percentage: the catalog, the
// hooks, the prompt segment, the statusLine, the wrapper and trim --fit.
type Windows struct {
	// Configured is [hooks.windows] from the config (prefix → tokens).
	Configured map[string]int64
	// Remembered is the per-model memory of reported windows (nil: none).
	Remembered WindowMemory
}

// For returns the context window of a session's model and its source:
// the window the statusLine reported for this session (reported), else the
// one the transcript recorded (recorded, Codex), else the one the
// statusLine last reported for this model, else the configured table,
// else the built-in one, else DefaultWindow.
func (w Windows) For(model string, reported, recorded int64) (int64, string) {
	switch {
	case reported > 0:
		return reported, SourceStatusline
	case recorded > 0:
		return recorded, SourceTranscript
	}
	if w.Remembered != nil && model != "" {
		if v := w.Remembered.Window(model); v > 0 {
			return v, SourceStatusline
		}
	}
	if v := lookupPrefix(w.Configured, model); v > 0 {
		return v, SourceConfig
	}
	if strings.HasSuffix(strings.ToLower(model), "[1m]") {
		return 1_000_000, SourceModel
	}
	if v := lookupPrefix(builtinWindows, model); v > 0 {
		return v, SourceModel
	}
	return DefaultWindow, SourceDefault
}

// Known reports whether a window from source was observed or configured
// rather than assumed.
func Known(source string) bool { return source != SourceDefault && source != "" }

func lookupPrefix(table map[string]int64, model string) int64 {
	if model == "" {
		return 0
	}
	best, bestLen := int64(0), -1
	for k, w := range table {
		if strings.HasPrefix(model, k) && len(k) > bestLen {
			best, bestLen = w, len(k)
		}
	}
	return best
}

// WindowFile is a WindowMemory kept in a small JSON file (model → tokens).
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
func (f WindowFile) Cached() WindowMemory { return &cachedWindows{file: f} }

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

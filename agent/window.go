package agent

import (
	"strings"
)

// DefaultWindow is the context window assumed when nothing better is
// known.
const DefaultWindow = 200_000

// Where a window came from, strongest first.
const (
	SourceStatusline = "statusline" // Claude Code's statusLine reported it
	SourceTranscript = "transcript" // the transcript (Codex) or the hook's payload (OpenCode's plugin, from the model's limit) recorded it
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

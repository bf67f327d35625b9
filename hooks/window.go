package hooks

import "strings"

// DefaultWindow is the context window assumed when nothing better is
// known.
const DefaultWindow int64 = 200_000

// modelWindows are windows observed for model ids (longest prefix wins).
// Claude Code 2.1.332's statusLine reported 1,000,000 for claude-opus-5-5;
// ids ending in "[1m]" select the 1M-token variant.
var modelWindows = map[string]int64{
	"claude-opus-5-5": 1_000_000,
}

// Window picks the context window for a session: the one the statusLine
// reported, else one the transcript recorded (Codex), else the configured
// table, else the built-in one, else DefaultWindow. It returns the source
// with it.
func Window(reported, recorded int64, model string, configured map[string]int64) (int64, string) {
	switch {
	case reported > 0:
		return reported, "statusline"
	case recorded > 0:
		return recorded, "transcript"
	}
	if w := lookupPrefix(configured, model); w > 0 {
		return w, "config"
	}
	if strings.HasSuffix(strings.ToLower(model), "[1m]") {
		return 1_000_000, "model"
	}
	if w := lookupPrefix(modelWindows, model); w > 0 {
		return w, "model"
	}
	return DefaultWindow, "default"
}

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

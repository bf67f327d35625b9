// Package agent is what tether knows about the coding agents it wraps,
// independent of either one's file formats: their names, the context in
// use after a turn, the context window of a model, and how a session is
// described (Session and its parts, the Reader the catalog merges). The formats
// themselves live in agent/claude (Claude Code's config dir) and
// agent/codex ($CODEX_HOME); nothing outside agent/ parses them.
package agent

// Harness names, as tether logs, stores and prints them.
const (
	Claude   = "claude-code"
	Codex    = "codex"
	OpenCode = "opencode"
)

// Usage is the context in use after the last turn of a session, as found
// in the end of its transcript.
type Usage struct {
	// Found is false when no usage was found within the tail limit (or the
	// session compacted and has not had a turn since).
	Found bool
	// Tokens is the context in use: what the last main-chain request sent
	// (Claude: input + cache creation + cache read; Codex: the request's
	// input tokens, which include the cached ones).
	Tokens                                  int64
	Input, CacheCreation, CacheRead, Output int64
	MessageID, Model                        string
	// Window is the model's context window when the transcript says
	// (Codex's model_context_window); 0 otherwise.
	Window int64
	// Compacted is set when a compact boundary was found after (or
	// instead of) the last usage; PreTokens/PostTokens come from its
	// metadata when present.
	Compacted             bool
	PreTokens, PostTokens int64
	// Size is the transcript's size; BytesRead how much of it was read.
	Size, BytesRead int64
}

// Percent is tokens as a percentage of window, cut (not rounded) to one
// decimal so that 99.96% never shows as 100%, and at least 0.1 when any
// token is used so that a small share never shows as 0% (a Codex session's
// first turns: 153 of 258,400 tokens).
func Percent(tokens, window int64) float64 {
	if window <= 0 {
		return 0
	}
	tenths := tokens * 1000 / window
	if tenths == 0 && tokens > 0 {
		tenths = 1
	}
	return float64(tenths) / 10
}

// Activity is one tool call, as much of it as a summary may show: the
// tool's name and the paths it named, never its arguments or output.
type Activity struct {
	Tool  string   `json:"tool"`
	Paths []string `json:"paths,omitempty"`
}

// Recent is the end of a session: its last tool calls (oldest first) and
// the last text the assistant wrote, from a bounded tail read.
type Recent struct {
	Tools         []Activity
	LastAssistant string
}

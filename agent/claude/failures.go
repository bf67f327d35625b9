package claude

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
)

// noConversation starts the line Claude Code (2.0.77 and 2.1.332) prints on
// stderr, exit status 1, when it cannot load the session it was asked to
// resume: no transcript with that id, or one that holds no conversation
// (empty, binary, summaries only, garbage after the first record).
const noConversation = "No conversation found with session ID: "

// LoadFailed reports whether what a resume of id printed on stderr holds
// Claude Code's own message for a session it could not load. Only the
// exact line counts: a mistyped flag, a missing prompt or a network error
// says something else and is not the session's fault.
func LoadFailed(stderr []byte, id string) bool {
	for _, line := range bytes.Split(stderr, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if rest, ok := bytes.CutPrefix(line, []byte(noConversation)); ok && (id == "" || strings.EqualFold(string(rest), id)) {
			return true
		}
	}
	return false
}

// The API's 400s for a history whose tool_use and tool_result blocks do
// not pair up, as the API words them and as Claude Code records them in
// the API-error record's text (both versions say "tool use concurrency
// issues"; 2.1.332 also sets apiError "tool_history_mismatch").
var toolPairingTexts = []string{
	"tool use concurrency issues",
	"ids were found without `tool_result` blocks immediately after",
	"unexpected `tool_use_id` found in `tool_result` blocks",
}

const apiErrorToolHistory = "tool_history_mismatch"

// ToolPairingError reports whether line is a main-chain API-error record
// for the API's refusal of a history with unpaired tool blocks: a resume
// of that history fails the same way every time.
func ToolPairingError(line []byte) bool {
	if _, _, ok := APIError(line); !ok {
		return false
	}
	r := gjson.ParseBytes(line)
	if r.Get(KeyAPIError).Str == apiErrorToolHistory {
		return true
	}
	text := r.Get("message.content.0.text").Str
	for _, t := range toolPairingTexts {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

// LastMainRecord is the last main-chain (non-sidechain) record in data,
// or nil: the one that says how a run ended.
func LastMainRecord(data []byte) []byte {
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if !bytes.Contains(line, []byte(`"`+KeyUUID+`"`)) || !gjson.ValidBytes(line) || !gjson.GetBytes(line, KeyUUID).Exists() {
			continue
		}
		if gjson.GetBytes(line, KeyIsSidechain).Bool() {
			continue
		}
		return line
	}
	return nil
}

package claude

import "testing"

// The exact lines Claude Code 2.0.77 and 2.1.332 print (observed with the
// real CLIs), and others that must not count.
func TestLoadFailed(t *testing.T) {
	const id = "11111111-2222-4333-8444-555555555555"
	for stderr, want := range map[string]bool{
		"No conversation found with session ID: " + id + "\n":                                                           true,
		"warning: x\nNo conversation found with session ID: " + id + "\r\n":                                             true,
		"No conversation found with session ID: 22222222-2222-4333-8444-555555555555":                                   false,
		"error: unknown option '--modle'\n(Did you mean --model?)\n":                                                    false,
		"Error: No deferred tool marker found in the resumed session. Provide a prompt to continue the conversation.\n": false,
		"Error: No messages returned\n":                                                                                 false,
		"":                                                                                                              false,
	} {
		if got := LoadFailed([]byte(stderr), id); got != want {
			t.Errorf("LoadFailed(%q) = %v, want %v", stderr, got, want)
		}
	}
}

func TestToolPairingError(t *testing.T) {
	rec := func(extra, text string) []byte {
		return []byte(`{"type":"assistant","uuid":"a","isSidechain":false,"isApiErrorMessage":true,"error":"invalid_request"` + extra +
			`,"message":{"content":[{"type":"text","text":"` + text + `"}]}}`)
	}
	for _, c := range []struct {
		line []byte
		want bool
	}{
		{rec("", "API Error: 400 due to tool use concurrency issues."), true},              // 2.0.77
		{rec(`,"apiError":"tool_history_mismatch"`, "API Error: 400 something new"), true}, // 2.1.332's field
		{rec("", "API Error: 500 Internal server error."), false},
		{rec("", "Prompt is too long"), false},
		{[]byte(`{"type":"assistant","uuid":"a","message":{"content":[{"type":"text","text":"tool use concurrency issues"}]}}`), false},
	} {
		if got := ToolPairingError(c.line); got != c.want {
			t.Errorf("ToolPairingError(%s) = %v, want %v", c.line, got, c.want)
		}
	}
}

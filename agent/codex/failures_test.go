package codex

import "testing"

// The lines Codex 0.171.0 prints (observed with the real CLI).
func TestLoadFailed(t *testing.T) {
	for stderr, want := range map[string]bool{
		"Error: thread/resume: thread/resume failed: no rollout found for thread id 019a0000-0000-7000-8000-000000000000 (code -32600)\n":                                                                    true,
		"WARNING: x\nError: thread/resume: thread/resume failed: failed to read thread: thread-store internal error: failed to read session metadata /r.jsonl: rollout at /r.jsonl is empty (code -32603)\n": true,
		"error: unexpected argument '--modle' found\n":                                         false,
		"Error: stdin is not a terminal\n":                                                     false,
		"ERROR: We’re currently experiencing high demand, which may cause temporary errors.\n": false,
	} {
		if got := LoadFailed([]byte(stderr)); got != want {
			t.Errorf("LoadFailed(%q) = %v, want %v", stderr, got, want)
		}
	}
}

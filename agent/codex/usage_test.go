package codex

import (
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent/jsonl"
)

func TestUsage(t *testing.T) {
	u, err := Usage(nil, filepath.Join("..", "..", "testdata", "samples", "codex-0.171.0-rollout-tool-resume.jsonl"), jsonl.DefaultTail)
	if err != nil || !u.Found || u.Tokens != 153 || u.Window != 258400 || u.CacheRead != 50 {
		t.Errorf("%+v %v", u, err)
	}
}

package codex

import (
	"testing"

	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestUsage(t *testing.T) {
	u, err := Usage(nil, testutil.Testdata(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl"), jsonl.DefaultTail)
	if err != nil || !u.Found || u.Tokens != 153 || u.Window != 258400 || u.CacheRead != 50 {
		t.Errorf("%+v %v", u, err)
	}
}

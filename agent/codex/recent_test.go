package codex

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestRecentGolden(t *testing.T) {
	r, err := Recent(nil, testutil.Testdata(t, "codex-0.171.0", "golden-rollout-exec-resume.jsonl"), jsonl.DefaultTail, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 1 || r.Tools[0].Tool != "exec_command" || len(r.Tools[0].Paths) != 0 {
		t.Errorf("tools %+v", r.Tools)
	}
	if r.LastAssistant != "Resumed." {
		t.Errorf("last assistant %q", r.LastAssistant)
	}
}

func TestCallActivityPatchPaths(t *testing.T) {
	p := `{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a/b.go\n@@\n-x\n+y\n*** Add File: c.txt\n+z\n*** End Patch"}`
	a := callActivity(gjsonParse(p))
	if a.Tool != "apply_patch" || len(a.Paths) != 2 || a.Paths[0] != "a/b.go" || a.Paths[1] != "c.txt" {
		t.Errorf("%+v", a)
	}
}

func gjsonParse(s string) gjson.Result { return gjson.Parse(s) }

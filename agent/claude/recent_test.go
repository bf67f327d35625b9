package claude

import (
	"reflect"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestRecentGolden(t *testing.T) {
	for _, v := range []string{"2.0.77", "2.1.332"} {
		r, err := Recent(nil, testutil.Testdata(t, "claude-code-"+v, "golden-tool-session.jsonl"), jsonl.DefaultTail, 20)
		if err != nil {
			t.Fatal(err)
		}
		want := []agent.Activity{{Tool: "Bash"}, {Tool: "Read", Paths: []string{"/home/example/src/project/notes.txt"}}}
		if !reflect.DeepEqual(r.Tools, want) {
			t.Errorf("%s: tools %+v, want %+v", v, r.Tools, want)
		}
		if r.LastAssistant != "Resumed." {
			t.Errorf("%s: last assistant %q", v, r.LastAssistant)
		}
		// n bounds the tools, newest kept.
		r1, _ := Recent(nil, testutil.Testdata(t, "claude-code-"+v, "golden-tool-session.jsonl"), jsonl.DefaultTail, 1)
		if len(r1.Tools) != 1 || r1.Tools[0].Tool != "Read" {
			t.Errorf("%s: n=1 gave %+v", v, r1.Tools)
		}
	}
}

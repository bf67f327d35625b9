package wrap

import (
	"os"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// TestResumeFailurePromptTooLongGoldens: what the real CLIs appended when
// a resumed prompt was too long is recognised as such.
func TestResumeFailurePromptTooLongGoldens(t *testing.T) {
	for _, v := range []string{"claude-code-2.0.77", "claude-code-2.1.332"} {
		data, err := os.ReadFile(testutil.Testdata(t, v, "golden-prompt-too-long.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		f := newFixture(t)
		f.writeTranscript(f.root.Path, string(data))
		o := Options{Agent: claude.New(f.claude)}
		if reason, _ := o.resumeFailure(sid, transcript{}); reason != "prompt too long" {
			t.Errorf("%s: resume failure %q, want prompt too long", v, reason)
		}
	}
}

package wrap

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
)

// TestResumeFailurePromptTooLongGoldens: what the real CLIs appended when
// a resumed prompt was too long is recognised as such.
func TestResumeFailurePromptTooLongGoldens(t *testing.T) {
	for _, v := range []string{"claude-2.0.77", "claude-2.1.332"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "golden", v+"-prompt-too-long.jsonl"))
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

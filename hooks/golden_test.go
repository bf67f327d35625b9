package hooks

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// TestPromptTooLongGoldens replays the hook payloads the real CLIs sent
// for a prompt-too-long turn, against the transcript they wrote: the
// failed turn is recorded once, as prompt too long, whether the CLI ran
// StopFailure (2.1.332) or it is found at SessionEnd (2.0.77).
func TestPromptTooLongGoldens(t *testing.T) {
	for _, v := range []string{"claude-code-2.0.77", "claude-code-2.1.332"} {
		t.Run(v, func(t *testing.T) {
			h := newHandlerEnv(t)
			h.env["CLAUDE_CODE_SESSION_ID"] = "s"
			golden := testutil.Testdata(t, v)
			data, err := os.ReadFile(filepath.Join(golden, "golden-prompt-too-long.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			tr := writeLines(t, strings.TrimRight(string(data), "\n"))
			f, err := os.Open(filepath.Join(golden, "golden-prompt-too-long-hooks.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				payload, _ := sjson.Set(sc.Text(), "transcript_path", tr)
				h.handle(t, payload)
			}
			fail := h.records(t, EvTurnFailure)
			if len(fail) != 1 || !fail[0].Get("prompt_too_long").Bool() {
				t.Errorf("turn_failure records: %v", fail)
			}
		})
	}
}

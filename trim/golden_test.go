package trim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// goldenTranscripts are the Claude Code transcripts the e2e suite recorded
// from the real CLIs (scripts/golden.sh): tool sessions, forks and failed
// turns of both pinned versions.
func goldenTranscripts(t *testing.T) []string {
	t.Helper()
	all, _ := filepath.Glob(testutil.Testdata(t, "claude-code-*", "golden-*.jsonl"))
	var out []string
	for _, p := range all {
		if !strings.Contains(filepath.Base(p), "hook") {
			out = append(out, p)
		}
	}
	if len(out) < 6 {
		t.Fatalf("golden transcripts missing: %v", all)
	}
	return out
}

// TestGoldenTranscripts: what the real CLIs wrote validates as it is, and
// both policies turn it into output that validates again, copying kept
// records byte for byte but for their parent links.
func TestGoldenTranscripts(t *testing.T) {
	for _, p := range goldenTranscripts(t) {
		t.Run(filepath.Base(filepath.Dir(p))+"-"+filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			in := string(data)
			if err := Validate(strings.NewReader(in)); err != nil {
				t.Fatalf("real transcript does not validate: %v", err)
			}
			for _, opts := range []Options{
				{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/project"}},
				{Policy: PolicyFit, FitTokens: 1},
			} {
				out, _, err := trimString(t, in, opts)
				var fitErr *FitError
				if err != nil {
					if errors.As(err, &fitErr) {
						continue // nothing left to drop; refused, not corrupted
					}
					t.Fatalf("%s: %v", opts.Policy, err)
				}
				if err := Validate(strings.NewReader(out)); err != nil {
					t.Errorf("%s: output does not validate: %v", opts.Policy, err)
				}
				checkCopied(t, in, out)
			}
		})
	}
}

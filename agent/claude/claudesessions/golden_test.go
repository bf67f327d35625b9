package claudesessions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// TestGoldenTranscripts lists and reads the transcripts the e2e suite
// recorded from the real CLIs (scripts/golden.sh): every one is a session
// with the recorded cwd, a title and a resume spec, and none is a
// diagnostic.
func TestGoldenTranscripts(t *testing.T) {
	golden, _ := filepath.Glob(testutil.Testdata(t, "claude-code-*", "golden-*.jsonl"))
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "-home-example-src-project")
	os.MkdirAll(proj, 0o700)
	var ids []string
	for _, g := range golden {
		if strings.Contains(filepath.Base(g), "hook") {
			continue
		}
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		id := filepath.Base(filepath.Dir(g)) + "-" + strings.TrimSuffix(filepath.Base(g), ".jsonl")
		os.WriteFile(filepath.Join(proj, id+".jsonl"), data, 0o600)
		ids = append(ids, id)
	}
	if len(ids) < 6 {
		t.Fatalf("golden transcripts missing: %v", golden)
	}
	r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}}
	got, diags := sessiontest.List(t, r, false)
	if len(diags) != 0 {
		t.Errorf("diagnostics for real transcripts: %+v", diags)
	}
	for _, id := range ids {
		s, ok := got[id]
		if !ok {
			t.Errorf("%s not listed", id)
			continue
		}
		if s.Cwd != "/home/example/src/project" || s.Title == "" || len(s.Resume.Argv) == 0 || s.Created.IsZero() {
			t.Errorf("%s: %+v", id, s)
		}
		full, err := r.Get(context.Background(), s)
		if err != nil || full.Counts == nil {
			t.Errorf("%s: Get: %v", id, err)
		}
	}
}

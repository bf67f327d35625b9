//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
)

// TestWrapResumeByPrefix (issue 23, item 4): the short ids tether prints
// work with `tether run claude --resume`: the wrapper gives the real
// Claude Code 2.1.332 the full id (it answers "No sessions match" to a
// prefix), an archived session (its transcript gone from ~/.claude) is
// restored by prefix, and an ambiguous prefix starts nothing.
func TestWrapResumeByPrefix(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	env, api, tetherBin := wrapEnv(t, clis.Claude)
	archiveMode(t, env, "copy")
	dir := env.ProjectDir("project")
	sj := []string{"--output-format", "stream-json", "--verbose"}

	sid := claudeP(t, env, clis.Claude, dir, "-p", "FIRST_PREFIX_PROMPT")
	r := env.Run(ctx, "resume by prefix", tetherBin, dir, append([]string{"run", "claude", "-p", "--resume", sid[:8], "SECOND_PREFIX_PROMPT"}, sj...)...)
	if r.ExitCode != 0 || strings.Contains(r.Stderr, "starting fresh") {
		t.Errorf("resume by prefix: exit %d stderr %q", r.ExitCode, r.Stderr)
	} else if sessionOf(t, r) != sid {
		t.Errorf("resume by prefix ran another session")
	} else {
		sawPrompts(t, api, "prefix", "FIRST_PREFIX_PROMPT", "SECOND_PREFIX_PROMPT")
	}

	// Archived: the listing keeps a copy; the cleanup unlinks the file.
	tether(t, env, "sessions")
	transcript := findTranscript(t, env, sid)
	os.Remove(transcript)
	r = env.Run(ctx, "resume archived by prefix", tetherBin, dir, append([]string{"run", "claude", "-p", "--resume", sid[:8], "THIRD_PREFIX_PROMPT"}, sj...)...)
	if r.ExitCode != 0 || sessionOf(t, r) != sid || !strings.Contains(r.Stderr, "tether: restored session "+sid[:8]+" from tether's archive") {
		t.Fatalf("archived resume by prefix: exit %d stderr %q", r.ExitCode, r.Stderr)
	}
	sawPrompts(t, api, "archived", "FIRST_PREFIX_PROMPT", "THIRD_PREFIX_PROMPT")

	// Two sessions sharing the prefix: refused, both named, nothing run.
	twin := strings.Replace(transcript, sid, sid[:8]+"-0000-4000-8000-000000000000", 1)
	data, _ := os.ReadFile(transcript)
	os.WriteFile(twin, data, 0o600)
	before := len(api.ModelRequests())
	r = env.Run(ctx, "ambiguous prefix", tetherBin, dir, "run", "claude", "-p", "--resume", sid[:8], "NOPE")
	if r.ExitCode == 0 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "ambiguous") ||
		!strings.Contains(r.Stderr, sid) || !strings.Contains(r.Stderr, sid[:8]+"-0000-4000-8000-000000000000") || len(api.ModelRequests()) != before {
		t.Errorf("ambiguous: exit %d stderr %q, %d new requests", r.ExitCode, r.Stderr, len(api.ModelRequests())-before)
	}
}

//go:build e2e

package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestOpenCodeWrapForksAfterFailedCompaction drives the wrapper's retry
// with the real OpenCode: a session whose history even OpenCode's own
// compaction cannot fit is resumed through `tether run` with the next
// prompt on stdin (as the docs recommend). The run fails, the wrapper
// says so, forks the session's last answered turns into a new session
// and runs the command once more on the fork, which sends the same
// prompt from stdin with the kept turns (the unanswered one left out)
// and succeeds.
func TestOpenCodeWrapForksAfterFailedCompaction(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", clis.OpenCode)
	// Any request carrying the overflowing turn is too long, the
	// compaction's included (a side request by the fake's rules).
	const overflow = "second-overflowing-prompt"
	tooLong := func(r fakeapi.Request) bool { return strings.Contains(string(r.Body), overflow) }
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !tooLong(r) && fakeapi.IsSideRequest(r) })
	api.SetResponder(func(r fakeapi.Request) (fakeapi.Reply, bool) {
		if tooLong(r) {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Text("fine"), true
	})
	dir := gitProject(t, env, "proj")
	id := openCodeSession(t, env, dir, "first-kept-prompt")
	env.OpenCodePrompt(context.Background(), clis.OpenCode, dir, overflow, "--session", id)
	if _, failed := parseOCExport(t, openCodeExportRaw(t, env, dir, id)).summaries(); failed == 0 {
		t.Fatal("OpenCode's compaction did not fail")
	}
	before := openCodeExportRaw(t, env, dir, id)

	r := env.RunInput(context.Background(), "echo next prompt | tether run opencode run --session ID", harness.Tether(t), dir,
		"next-piped-prompt\n", "run", "opencode", "run", "--session", id, "--format", "json")
	notice := regexp.MustCompile(`tether: session \S+: history too large for the agent's own compaction — its last \d+ of \d+ turns are now session (ses_\w+) \(\S+ is unchanged\); resuming \S+ once more\.`)
	m := notice.FindStringSubmatch(r.Stderr)
	if r.ExitCode != 0 || m == nil {
		t.Fatalf("exit %d (timed out %v), stderr %s", r.ExitCode, r.TimedOut, r.Stderr)
	}
	fork := m[1]
	if fork == id || !strings.Contains(r.Stdout, `"sessionID":"`+fork+`"`) {
		t.Errorf("fork %s (original %s); the retry's output: %s", fork, id, r.Stdout)
	}
	var sent bool
	for _, req := range api.ModelRequests() {
		body := string(req.Body)
		if !strings.Contains(body, "next-piped-prompt") || tooLong(req) {
			continue
		}
		sent = true
		if !strings.Contains(body, "first-kept-prompt") {
			t.Errorf("the fork's turn does not carry the kept turn: %q", req.UserTexts())
		}
	}
	if !sent {
		t.Error("no request of the retry carried the prompt piped in")
	}
	// The fork resumes by the short form of its id tether prints (a
	// unique prefix of the id's body), which OpenCode itself does not
	// know.
	short := shortBody(fork, id)
	r = env.RunInput(context.Background(), "tether run opencode run -s SHORT", harness.Tether(t), dir,
		"third-prompt-by-short-id", "run", "opencode", "run", "-s", short, "--format", "json")
	if got, err := r.OpenCodeSession(); r.ExitCode != 0 || err != nil || got != fork || strings.Contains(r.Stderr, "starting fresh") {
		t.Errorf("resume by %s: exit %d, session %q (%v), stderr %s", short, r.ExitCode, got, err, r.Stderr)
	}
	// The original's rows are untouched but for the failed attempt's turn.
	if after := parseOCExport(t, openCodeExportRaw(t, env, dir, id)); len(after.Messages) < len(parseOCExport(t, before).Messages) {
		t.Errorf("the original lost messages")
	}
}

// shortBody is the shortest prefix, eight characters at least, of id's
// body (after "ses_") that no other's body starts with.
func shortBody(id string, others ...string) string {
	body := strings.TrimPrefix(id, "ses_")
	for n := 8; n < len(body); n++ {
		unique := true
		for _, o := range others {
			unique = unique && !strings.HasPrefix(strings.TrimPrefix(o, "ses_"), body[:n])
		}
		if unique {
			return body[:n]
		}
	}
	return body
}

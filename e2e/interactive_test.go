//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestInteractiveClaude drives Claude Code 2.1.332's TUI in a private tmux
// server: type a prompt, wait for the reply on screen, quit with /exit, and
// check the transcript it left.
func TestInteractiveClaude(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("interactive")
	env.SeedClaudeJSON(dir)

	const reply = "Pong from the fake model."
	api.Enqueue(fakeapi.Text(reply))

	tm := env.StartTmux(dir, clis.Claude)
	// The input box is ready once its prompt character is drawn.
	tm.WaitFor("❯", 30*time.Second)
	tm.SendText("say pong")
	tm.SendKeys("Enter")
	screen := tm.WaitFor(reply, 60*time.Second)
	t.Logf("screen after the reply:\n%s", screen)

	tm.SendText("/exit")
	tm.SendKeys("Enter")
	if status := tm.WaitExit(30 * time.Second); status != 0 && status != harness.StatusUnknown {
		t.Errorf("claude exited %d after /exit; screen:\n%s", status, tm.Capture())
	}
	tm.Kill()

	req, ok := api.LastModelRequest()
	if !ok || !strings.Contains(req.LastUserText(), "say pong") {
		t.Errorf("the fake API did not get the typed prompt: %+v", req.Messages)
	}
	sids, empty := sessionsIn(t, env, dir)
	if len(sids) != 1 || len(empty) != 0 {
		t.Fatalf("want one transcript for %s, have %v", dir, env.ClaudeTranscripts())
	}
	recs := checkClaudeTranscript(t, env, harness.ClaudeVersion, dir, sids[0])
	var prompt, answer bool
	for _, r := range recs {
		if r.kind == "user" && strings.Contains(r.text, "say pong") {
			prompt = true
		}
		if r.kind == "assistant" && strings.Contains(r.text, reply) {
			answer = true
		}
	}
	if !prompt || !answer {
		t.Errorf("transcript %s: typed prompt recorded %v, reply recorded %v", claudeTranscriptPath(env, dir, sids[0]), prompt, answer)
	}
}

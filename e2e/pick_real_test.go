//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestPickResumesRealSessions: a Claude Code 2.1.332 session made in one
// directory and a Codex thread made in another are found in `tether pick`
// (started elsewhere) by typing part of their prompts, and Enter resumes
// each through the wrapper: the next request the fake API gets carries
// the earlier prompt.
func TestPickResumesRealSessions(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	claudeDir, codexDir, elsewhere := env.ProjectDir("narwhal-proj"), env.ProjectDir("okapi-proj"), env.ProjectDir("elsewhere")
	env.SeedClaudeJSON(claudeDir)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	env.Setenv("TETHER_CODEX_BIN", clis.Codex)

	api.Enqueue(fakeapi.Text("first answer"))
	claudeP(t, env, clis.Claude, claudeDir, "-p", "narwhal tusk census")
	api.Enqueue(fakeapi.Text("first codex answer"))
	if res := env.Codex(context.Background(), clis.Codex, codexDir, "exec", "--skip-git-repo-check", "okapi stripe survey"); res.ExitCode != 0 {
		t.Fatalf("codex exec: exit %d: %s", res.ExitCode, res.Stderr)
	}

	cases := []struct {
		name, query, earlier, ready string
	}{
		{"claude", "narwhal tusk", "narwhal tusk census", "❯"},
		{"codex", "okapi stripe", "okapi stripe survey", "›"},
	}
	for _, c := range cases {
		func() {
			tm := env.StartTmux(elsewhere, harness.Tether(t), "pick")
			tm.WaitFor("tether pick", pickWait)
			tm.SendText(c.query)
			screen, ok := tm.WaitUntil(func(s string) bool { return strings.Contains(s, " 1/") }, pickWait)
			if !ok {
				t.Fatalf("%s: typing %q did not narrow to one session:\n%s", c.name, c.query, screen)
			}
			tm.SendKeys("Enter")
			tm.WaitFor(c.ready, 60*time.Second)
			api.Enqueue(fakeapi.Text("second answer " + c.name))
			tm.SendText("and one more thing")
			// Codex's composer takes keys that arrive in a burst for a
			// paste, and an Enter inside the burst for a newline: the
			// text is on screen and the burst over before Enter is sent
			// (the resumed thread's "›" can show before the composer
			// reads keys at all).
			tm.WaitFor("and one more thing", 60*time.Second)
			time.Sleep(500 * time.Millisecond)
			tm.SendKeys("Enter")
			tm.WaitFor("second answer "+c.name, 60*time.Second)
			req, ok := api.LastModelRequest()
			if !ok || !strings.Contains(strings.Join(req.UserTexts(), "\n"), c.earlier) {
				t.Errorf("%s: the resumed session's request lacks the earlier prompt %q: %q", c.name, c.earlier, req.UserTexts())
			}
			if !strings.Contains(req.LastUserText(), "and one more thing") {
				t.Errorf("%s: last user text %q", c.name, req.LastUserText())
			}
			tm.Kill()
		}()
	}
}

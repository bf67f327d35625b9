package sessiontest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Synthetic makes n sessions with realistic titles, prompts and paths, one
// a minute back from now, every fifth a Codex thread. The seed is fixed:
// the same call makes the same sessions, so benchmarks compare.
func Synthetic(n int, now time.Time) []agent.Session {
	words := strings.Fields("fix the flaky login test refactor parser lexer write release notes bump dependency " +
		"explain stack trace review diff bugs port script to go cache hook fail open build slow docs api config loader")
	rng := rand.New(rand.NewPCG(1, 2))
	phrase := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	ss := make([]agent.Session, n)
	for i := range ss {
		h, resume := agent.Claude, "claude --resume"
		if i%5 == 0 {
			h, resume = agent.Codex, "codex resume"
		}
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), i)
		cwd := fmt.Sprintf("/home/example/src/project-%d/%s", i%200, words[i%len(words)])
		ss[i] = agent.Session{Harness: h, ID: id, Cwd: cwd, IdentityRoot: cwd, Title: phrase(6), State: agent.StateResumable,
			LastActivity: now.Add(-time.Duration(i) * time.Minute),
			Resume:       agent.ResumeSpec{Argv: append(strings.Fields(resume), id), Dir: cwd}}
		ss[i].FirstPrompt = phrase(30)
		ss[i].RecentPrompts = []string{phrase(20), phrase(20)}
		ss[i].GitBranch = "feature/" + words[rng.IntN(len(words))]
	}
	return ss
}

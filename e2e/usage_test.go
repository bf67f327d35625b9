//go:build e2e

package e2e

// tether usage against ccusage 20.0.24 on sessions the real CLIs wrote:
// Claude Code 2.1.332 and 2.0.77 (a tool turn, a resume, a fork that
// repeats its parent's responses, a prompt-too-long API error) and Codex
// 0.171.0 (exec and exec resume), with the fake API's usage numbers. The
// tokens must equal ccusage's per harness and per day, the cost be within
// 0.5 %.

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// The models asked for: ones both tables price, so costs are compared too.
const (
	pricedClaude = "claude-sonnet-4-5-20250929"
	pricedCodex  = "gpt-5.1-codex"
)

func TestUsageMatchesCcusage(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	ctx := context.Background()
	for i, c := range claudeCLIs(t) {
		cwd := env.ProjectDir("usage-" + c.version)
		u := func(n int) fakeapi.Usage {
			return fakeapi.Usage{InputTokens: 100*n + i, CacheCreationInputTokens: 2000 * n, CacheReadInputTokens: 30000 * n, OutputTokens: 40*n + 7}
		}
		flags := []string{"--model", pricedClaude, "--allowedTools", "Bash"}
		api.Enqueue(fakeapi.Bash("echo hi").WithUsage(u(1)).Then(fakeapi.Text("Ran it.").WithUsage(u(2))))
		sid := claudeP(t, env, c.bin, cwd, append([]string{"-p", "run a tool"}, flags...)...)
		api.Enqueue(fakeapi.Text("Resumed.").WithUsage(u(3)))
		claudeP(t, env, c.bin, cwd, append([]string{"-p", "--resume", sid, "again"}, flags...)...)
		api.Enqueue(fakeapi.Text("Forked.").WithUsage(u(4)))
		claudeP(t, env, c.bin, cwd, append([]string{"-p", "--resume", sid, "--fork-session", "fork it"}, flags...)...)
		api.Enqueue(fakeapi.PromptTooLong(210000, 200000))
		env.Claude(ctx, c.bin, cwd, append([]string{"-p", "too much", "--output-format", "stream-json", "--verbose"}, flags...)...)
	}
	cwd := env.ProjectDir("usage-codex")
	api.Enqueue(fakeapi.Text("One.").WithUsage(fakeapi.Usage{InputTokens: 1500, CacheReadInputTokens: 1000, OutputTokens: 30, ReasoningOutputTokens: 12}))
	res := env.Codex(ctx, clis.Codex, cwd, append(append([]string{"exec", "-m", pricedCodex}, codexExecFlags...), "first codex turn")...)
	if res.ExitCode != 0 {
		t.Fatalf("codex exec: %d %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	api.Enqueue(fakeapi.Text("Two.").WithUsage(fakeapi.Usage{InputTokens: 2600, CacheReadInputTokens: 2400, OutputTokens: 50, ReasoningOutputTokens: 20}))
	thread := codexThreadOf(t, rollouts[0])
	if res := env.Codex(ctx, clis.Codex, cwd, append(append([]string{"exec", "-m", pricedCodex}, codexExecFlags...), "resume", thread, "second turn")...); res.ExitCode != 0 {
		t.Fatalf("codex exec resume: %d %s", res.ExitCode, res.Stderr)
	}

	for _, h := range []struct{ ccusage, tether string }{{"claude", "claude-code"}, {"codex", "codex"}} {
		cc := env.Run(ctx, "ccusage", clis.CCUsage, env.Home, h.ccusage, "daily", "--json", "--offline")
		if cc.ExitCode != 0 {
			t.Fatalf("ccusage %s: %d %s", h.ccusage, cc.ExitCode, cc.Stderr)
		}
		te := env.Run(ctx, "tether", tether, env.Home, "usage", "daily", "--json", "--harness", h.tether)
		if te.ExitCode != 0 {
			t.Fatalf("tether usage: %d %s", te.ExitCode, te.Stderr)
		}
		compareDaily(t, h.tether, cc.Stdout, te.Stdout)
		// Warm: the kept counts give the same report.
		if again := env.Run(ctx, "tether", tether, env.Home, "usage", "daily", "--json", "--harness", h.tether); again.Stdout != te.Stdout {
			t.Errorf("%s: a warm report differs from the cold one:\n%s\n%s", h.tether, te.Stdout, again.Stdout)
		}
	}
}

func codexThreadOf(t *testing.T, rollout string) string {
	t.Helper()
	b, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	var meta struct {
		Payload struct{ ID string } `json:"payload"`
	}
	_ = json.Unmarshal([]byte(first), &meta)
	id := meta.Payload.ID
	if id == "" {
		t.Fatalf("no thread id in %s", rollout)
	}
	return id
}

type ccDay struct {
	Date                string   `json:"date"`
	InputTokens         int64    `json:"inputTokens"`
	OutputTokens        int64    `json:"outputTokens"`
	CacheCreationTokens int64    `json:"cacheCreationTokens"`
	CacheReadTokens     int64    `json:"cacheReadTokens"`
	TotalTokens         int64    `json:"totalTokens"`
	TotalCost           *float64 `json:"totalCost"`
	CostUSD             *float64 `json:"costUSD"`
}

type tetherDay struct {
	Period              string  `json:"period"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	TotalTokens         int64   `json:"totalTokens"`
	CostUSD             float64 `json:"costUSD"`
}

func compareDaily(t *testing.T, harnessName, ccOut, tetherOut string) {
	t.Helper()
	var cc struct{ Daily []ccDay }
	var te struct{ Daily []tetherDay }
	if err := json.Unmarshal([]byte(ccOut), &cc); err != nil {
		t.Fatalf("ccusage output: %v\n%s", err, ccOut)
	}
	if err := json.Unmarshal([]byte(tetherOut), &te); err != nil {
		t.Fatalf("tether output: %v\n%s", err, tetherOut)
	}
	if len(cc.Daily) == 0 {
		t.Fatalf("%s: ccusage counted nothing:\n%s", harnessName, ccOut)
	}
	if len(cc.Daily) != len(te.Daily) {
		t.Fatalf("%s: ccusage has %d days, tether %d:\n%s\n%s", harnessName, len(cc.Daily), len(te.Daily), ccOut, tetherOut)
	}
	for i, a := range cc.Daily {
		b := te.Daily[i]
		cost := 0.0
		if a.TotalCost != nil {
			cost = *a.TotalCost
		} else if a.CostUSD != nil {
			cost = *a.CostUSD
		}
		if a.Date != b.Period || a.InputTokens != b.InputTokens || a.OutputTokens != b.OutputTokens ||
			a.CacheCreationTokens != b.CacheCreationTokens || a.CacheReadTokens != b.CacheReadTokens || a.TotalTokens != b.TotalTokens {
			t.Errorf("%s day %s: ccusage %+v, tether %+v", harnessName, a.Date, a, b)
		}
		if math.Abs(cost-b.CostUSD) > 0.005*math.Abs(cost)+1e-12 {
			t.Errorf("%s day %s: cost ccusage %v, tether %v (over 0.5 %%)", harnessName, a.Date, cost, b.CostUSD)
		}
		t.Logf("%s %s: %d tokens, ccusage $%.6f, tether $%.6f", harnessName, a.Date, a.TotalTokens, cost, b.CostUSD)
	}
}

//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// ocStats is what `opencode stats --models` prints: the totals (the
// sessions' running totals) and the one model's sums (its messages').
type ocStats struct {
	Sessions, Messages                      int
	Cost                                    string // $X.XX
	Input, Output, CacheRead, CacheWrite    int64
	ModelMessages                           int
	ModelInput, ModelOutput, ModelCacheRead int64
	ModelCacheWrite                         int64
	ModelCost                               float64 // to 4 decimals
}

// openCodeStats runs the real `opencode stats --models` and parses its
// table. The token figures are exact below 1,000 (opencode prints 1.2K
// above): the test's usage keeps every sum below that.
func openCodeStats(t *testing.T, env *harness.Env, dir string) ocStats {
	t.Helper()
	res := env.OpenCode(context.Background(), harness.CLIs(t).OpenCode, dir, "stats", "--models")
	if res.ExitCode != 0 {
		t.Fatalf("opencode stats: exit %d: %s", res.ExitCode, res.Stderr)
	}
	row := regexp.MustCompile(`│\s*([A-Za-z][A-Za-z /]*?)\s{2,}(\S+) │`)
	var s ocStats
	inModel := false
	num := func(v string) int64 {
		n, err := strconv.ParseInt(strings.ReplaceAll(v, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("opencode stats: %q is not an exact count (a sum reached 1,000?)\n%s", v, res.Stdout)
		}
		return n
	}
	for _, line := range strings.Split(res.Stdout, "\n") {
		if strings.Contains(line, "MODEL USAGE") {
			inModel = true
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k, v := m[1], m[2]
		switch {
		case k == "Sessions":
			s.Sessions = int(num(v))
		case k == "Messages" && !inModel:
			s.Messages = int(num(v))
		case k == "Total Cost":
			s.Cost = v
		case k == "Input" && !inModel:
			s.Input = num(v)
		case k == "Output" && !inModel:
			s.Output = num(v)
		case k == "Cache Read" && !inModel:
			s.CacheRead = num(v)
		case k == "Cache Write" && !inModel:
			s.CacheWrite = num(v)
		case k == "Messages":
			s.ModelMessages = int(num(v))
		case k == "Input Tokens":
			s.ModelInput = num(v)
		case k == "Output Tokens":
			s.ModelOutput = num(v)
		case k == "Cache Read":
			s.ModelCacheRead = num(v)
		case k == "Cache Write":
			s.ModelCacheWrite = num(v)
		case k == "Cost":
			s.ModelCost, _ = strconv.ParseFloat(strings.TrimPrefix(v, "$"), 64)
		}
	}
	if s.Sessions == 0 || s.Cost == "" {
		t.Fatalf("opencode stats printed no totals:\n%s", res.Stdout)
	}
	return s
}

type usageTotals struct {
	Totals struct {
		InputTokens, OutputTokens, CacheCreationTokens, CacheReadTokens, ReasoningOutputTokens, TotalTokens int64
		CostUSD                                                                                             float64
		ByHarness                                                                                           map[string]json.RawMessage
	}
}

func tetherUsage(t *testing.T, env *harness.Env, args ...string) usageTotals {
	t.Helper()
	code, out, errOut := tether(t, env, append([]string{"usage", "--json", "--harness", "opencode"}, args...)...)
	var u usageTotals
	if code != 0 || json.Unmarshal([]byte(out), &u) != nil {
		t.Fatalf("tether usage: exit %d\n%s\n%s", code, out, errOut)
	}
	return u
}

// sameAsStats: tether's OpenCode totals are `opencode stats`' (its
// Output excludes reasoning, tether's outputTokens include it; the
// fake's replies have none).
func sameAsStats(t *testing.T, when string, u usageTotals, s ocStats) {
	t.Helper()
	tt := u.Totals
	if tt.InputTokens != s.Input || tt.OutputTokens-tt.ReasoningOutputTokens != s.Output || tt.CacheReadTokens != s.CacheRead ||
		tt.CacheCreationTokens != s.CacheWrite || "$"+strconv.FormatFloat(tt.CostUSD, 'f', 2, 64) != s.Cost {
		t.Errorf("%s: tether %+v\nopencode stats %+v", when, tt, s)
	}
	// The model's sums are its messages', as tether's records.
	if tt.InputTokens != s.ModelInput || tt.OutputTokens != s.ModelOutput || tt.CacheReadTokens != s.ModelCacheRead ||
		tt.CacheCreationTokens != s.ModelCacheWrite || math.Abs(tt.CostUSD-s.ModelCost) > 0.00005 {
		t.Errorf("%s: tether %+v\nopencode stats' model %+v", when, tt, s)
	}
	if _, ok := tt.ByHarness["opencode"]; !ok || len(tt.ByHarness) != 1 {
		t.Errorf("%s: byHarness %v", when, tt.ByHarness)
	}
}

// tether usage counts the real OpenCode's sessions — a tool call, a
// resumed turn, a second project — to the totals `opencode stats`
// prints, cost included (priced by OpenCode from the config's prices);
// a session OpenCode deleted still counts, from tether's archive.
func TestOpenCodeUsage(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_OPENCODE_BIN", clis.OpenCode)
	cfg := env.OpenCodeConfig()
	model := cfg["provider"].(map[string]any)[harness.OpenCodeProvider].(map[string]any)["models"].(map[string]any)[harness.OpenCodeModel].(map[string]any)
	model["cost"] = map[string]any{"input": 3000, "output": 15000, "cache_read": 300, "cache_write": 3750}
	env.WriteOpenCodeConfig(cfg)

	dir, other := gitProject(t, env, "proj"), gitProject(t, env, "other")
	u := func(in, out, read, write int) fakeapi.Usage {
		return fakeapi.Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: read, CacheCreationInputTokens: write}
	}
	api.Enqueue(fakeapi.CallTool("bash", map[string]any{"command": "echo hi && cat notes.txt", "description": "Print a greeting"}).
		WithUsage(u(31, 17, 40, 25)).Then(fakeapi.Text("tool said hi").WithUsage(u(43, 11, 65, 0))))
	id := openCodeSession(t, env, dir, "run the greeting tool please")
	api.Enqueue(fakeapi.Text("second answer").WithUsage(u(57, 13, 65, 9)))
	openCodeSession(t, env, dir, "second turn", "--session", id)
	api.Enqueue(fakeapi.Text("elsewhere").WithUsage(u(19, 7, 0, 30)))
	gone := openCodeSession(t, env, other, "a session to delete")

	s := openCodeStats(t, env, dir)
	if s.Sessions != 2 || s.ModelMessages != 4 || s.Input != 31+43+57+19 || s.CacheWrite != 25+9+30 {
		t.Fatalf("opencode stats %+v: not the runs' usage", s)
	}
	before := tetherUsage(t, env)
	t.Logf("opencode stats %+v; tether usage %+v", s, before.Totals)
	sameAsStats(t, "tether usage", before, s)
	if before.Totals.CostUSD <= 0 {
		t.Errorf("cost %v: OpenCode priced nothing", before.Totals.CostUSD)
	}
	// Warm: the same from the cache.
	sameAsStats(t, "warm tether usage", tetherUsage(t, env), s)
	// The session report has both sessions, each its own cost.
	if code, out, _ := tether(t, env, "usage", "session", "--json", "--harness", "opencode"); code != 0 || !strings.Contains(out, id) || !strings.Contains(out, gone) {
		t.Errorf("session report: exit %d\n%s", code, out)
	}
	// --cwd keeps the one project's session.
	if inDir := tetherUsage(t, env, "--cwd", dir); inDir.Totals.InputTokens != 31+43+57 {
		t.Errorf("--cwd %s: %+v", dir, inDir.Totals)
	}

	// Archived, then deleted by OpenCode: stats forgets it, tether does not.
	if code, out, errOut := tether(t, env, "archive", "sync"); code != 0 || !strings.Contains(out, "2 exported") {
		t.Fatalf("archive sync: exit %d\n%s\n%s", code, out, errOut)
	}
	if res := env.OpenCode(context.Background(), clis.OpenCode, other, "session", "delete", gone); res.ExitCode != 0 {
		t.Fatalf("opencode session delete: exit %d: %s", res.ExitCode, res.Stderr)
	}
	after := openCodeStats(t, env, dir)
	if after.Sessions != 1 || after.Input != 31+43+57 {
		t.Fatalf("opencode stats after the delete: %+v", after)
	}
	kept := tetherUsage(t, env)
	k, b := kept.Totals, before.Totals
	if k.InputTokens != b.InputTokens || k.OutputTokens != b.OutputTokens || k.CacheReadTokens != b.CacheReadTokens ||
		k.CacheCreationTokens != b.CacheCreationTokens || k.CostUSD != b.CostUSD {
		t.Errorf("after the delete tether counts %+v, want what it counted before %+v", k, b)
	}
	if code, out, _ := tether(t, env, "usage", "session", "--json", "--harness", "opencode"); code != 0 || !strings.Contains(out, gone) {
		t.Errorf("session report after the delete: exit %d\n%s", code, out)
	}
}

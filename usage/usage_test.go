package usage

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
)

func rec(key, alt uint64, side bool, in, out int64, at string) agent.UsageRecord {
	t, _ := time.Parse(time.RFC3339, at)
	return agent.UsageRecord{Time: t.UnixMilli(), Model: "claude-sonnet-4-5-20250929", Key: key, AltKey: alt, Sidechain: side, Input: in, Output: out}
}

func claudeFile(path string, recs ...agent.UsageRecord) agent.FileUsage {
	return agent.FileUsage{Harness: agent.Claude, Path: path, Session: path, Project: "p", Records: recs}
}

// A fork repeats its parent's responses: each counts once, and of two
// copies the fuller one (a streamed response's last line) is kept.
func TestRepeatedResponsesCountOnce(t *testing.T) {
	parent := claudeFile("a", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"), rec(1, 11, false, 10, 9, "2026-03-01T10:00:00Z"), rec(2, 12, false, 20, 1, "2026-03-01T11:00:00Z"))
	fork := claudeFile("b", rec(1, 11, false, 10, 9, "2026-03-01T10:00:00Z"), rec(3, 13, false, 7, 1, "2026-03-02T09:00:00Z"))
	rep := Build([]agent.FileUsage{parent, fork}, Options{Kind: Daily, Location: time.UTC})
	if rep.Totals.Input != 37 || rep.Totals.Output != 11 {
		t.Fatalf("totals %+v, want input 37 output 11", rep.Totals)
	}
	if rep.Duplicates != 2 || len(rep.Rows) != 2 || rep.Rows[0].Key != "2026-03-01" || rep.Rows[0].Output != 10 {
		t.Fatalf("rows %+v duplicates %d", rep.Rows, rep.Duplicates)
	}
}

// A sidechain replays a parent message under a new request id: matched by
// the message id alone, it loses to the parent's copy whichever comes
// first; a sidechain's own responses count.
func TestSidechainReplayLosesToParent(t *testing.T) {
	side := claudeFile("a-side", rec(90, 11, true, 10, 50, "2026-03-01T10:00:00Z"), rec(91, 14, true, 3, 3, "2026-03-01T10:00:00Z"))
	parent := claudeFile("b", rec(1, 11, false, 10, 5, "2026-03-01T10:00:00Z"))
	rep := Build([]agent.FileUsage{side, parent}, Options{Kind: Daily, Location: time.UTC})
	if rep.Totals.Input != 13 || rep.Totals.Output != 8 {
		t.Fatalf("totals %+v, want the parent's copy and the sidechain's own response", rep.Totals)
	}
}

func TestRecordsWithoutKeyAllCount(t *testing.T) {
	f := claudeFile("a", rec(0, 0, false, 1, 1, "2026-03-01T10:00:00Z"), rec(0, 0, false, 1, 1, "2026-03-01T10:00:00Z"))
	if rep := Build([]agent.FileUsage{f}, Options{Kind: Daily}); rep.Totals.Input != 2 {
		t.Fatalf("input %d, want 2", rep.Totals.Input)
	}
}

// Dates are the records' local dates in the zone asked for, and --since
// and --until bound them.
func TestDailyByTimeZoneAndBounds(t *testing.T) {
	f := claudeFile("a", rec(1, 0, false, 1, 0, "2026-03-01T23:30:00Z"), rec(2, 0, false, 2, 0, "2026-03-02T01:00:00Z"))
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	rep := Build([]agent.FileUsage{f}, Options{Kind: Daily, Location: kolkata})
	if len(rep.Rows) != 1 || rep.Rows[0].Key != "2026-03-02" {
		t.Fatalf("rows %+v, want one day, 2026-03-02 in Kolkata", rep.Rows)
	}
	rep = Build([]agent.FileUsage{f}, Options{Kind: Daily, Location: time.UTC, Since: "2026-03-02"})
	if rep.Totals.Input != 2 {
		t.Fatalf("since: input %d, want 2", rep.Totals.Input)
	}
	rep = Build([]agent.FileUsage{f}, Options{Kind: Monthly, Location: time.UTC, Until: "2026-03-01"})
	if rep.Totals.Input != 1 || rep.Rows[0].Key != "2026-03" {
		t.Fatalf("until: %+v", rep)
	}
}

func TestUnpricedModelCountsAtZero(t *testing.T) {
	r := rec(1, 0, false, 100, 10, "2026-03-01T10:00:00Z")
	r.Model = "nobody-prices-this-1"
	rep := Build([]agent.FileUsage{claudeFile("a", r)}, Options{Kind: Models})
	if rep.Totals.CostUSD != 0 || len(rep.Unpriced) != 1 || rep.Unpriced[0] != "nobody-prices-this-1" || rep.Totals.Input != 100 {
		t.Fatalf("report %+v", rep)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12+1e-9*math.Abs(b) }

// Anthropic's tiers apply per field per record past 200k tokens; a 1-hour
// cache write costs twice the input price.
func TestPerRequestTiersAndHourCache(t *testing.T) {
	p := Bundled()
	pr, ok := p.Find("claude-sonnet-4-5-20250929")
	if !ok || pr.InputAbove == 0 {
		t.Fatalf("sonnet 4.5 price %+v %v", pr, ok)
	}
	r := agent.UsageRecord{Model: "claude-sonnet-4-5-20250929", Input: 250_000, CacheWrite: 30, CacheWrite1h: 10}
	want := 200_000*pr.Input + 50_000*pr.InputAbove + 20*pr.CacheWrite + 10*2*pr.Input
	if got := cost(&r, agent.BillingPerRequest, p); !near(got, want) {
		t.Fatalf("cost %v, want %v", got, want)
	}
	r.HasCost, r.CostUSD = true, 0.25
	if got := cost(&r, agent.BillingPerRequest, p); got != 0.25 {
		t.Fatalf("a recorded cost wins: %v", got)
	}
}

// OpenAI's: no tiers, cached input at the cache-read price.
func TestFlatBilling(t *testing.T) {
	p := Bundled()
	pr, _ := p.Find("gpt-5")
	r := agent.UsageRecord{Model: "gpt-5", Input: 300_000, CacheRead: 1000, Output: 10}
	want := 300_000*pr.Input + 1000*pr.CacheRead + 10*pr.Output
	if got := cost(&r, agent.BillingFlat, p); !near(got, want) {
		t.Fatalf("cost %v, want %v", got, want)
	}
}

func TestFindMatchesAsCcusage(t *testing.T) {
	p := Bundled()
	for model, want := range map[string]string{
		"claude-sonnet-4-5-20250929":    "claude-sonnet-4-5-20250929",
		"vertex/claude-opus-4-1@001":    "claude-opus-4-1",
		"claude-opus-4-5-20251101-fast": "claude-opus-4-5-20251101",
		"gpt-5.1-codex":                 "gpt-5.1-codex",
	} {
		got, ok := p.Find(model)
		exp, eok := p.models[want]
		exp.Near = model != want
		if !ok || !eok || !reflect.DeepEqual(got, exp) {
			t.Errorf("Find(%q) = %+v %v, want %s's %+v", model, got, ok, want, exp)
		}
	}
	if _, ok := p.Find("claude-opus-9"); ok {
		t.Errorf("claude-opus-9 priced: a version is never matched across")
	}
	if _, ok := p.Find("fake-model"); ok {
		t.Errorf("fake-model priced")
	}
}

func TestParsePricingLiteLLMForm(t *testing.T) {
	p, err := ParsePricing([]byte(`{"m-1":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6},"bad":{"input_cost_per_token":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	pr, ok := p.Find("m-1")
	if !ok || !near(pr.CacheRead, 1e-7) || !near(pr.CacheWrite, 1.25e-6) || pr.CacheReadListed || p.Len() != 1 {
		t.Fatalf("%+v %v %d", pr, ok, p.Len())
	}
	if _, err := ParsePricing([]byte(`[1]`)); err == nil {
		t.Fatal("a list that is not a price table parsed")
	}
}

// Past a context tier a flat-billed request is priced whole at the tier;
// a loosely matched id's tier starts at 200,000 (ccusage 20.0.24's
// reading, measured: gpt-5.5 exact at 272,001 input tokens, gpt-5.5-codex
// at 200,001).
func TestContextTiers(t *testing.T) {
	p := Bundled()
	exact := agent.UsageRecord{Model: "gpt-5.5", Input: 200_001}
	if got := cost(&exact, agent.BillingFlat, p); !near(got, 1.000005) {
		t.Errorf("gpt-5.5 at 200,001: %v, want the base price", got)
	}
	exact.Input = 272_001
	if got := cost(&exact, agent.BillingFlat, p); !near(got, 2.72001) {
		t.Errorf("gpt-5.5 at 272,001: %v, want the tier's", got)
	}
	loose := agent.UsageRecord{Model: "gpt-5.5-codex", Input: 100_001, CacheRead: 100_000, Output: 1000}
	if got := cost(&loose, agent.BillingFlat, p); !near(got, 1.14501) {
		t.Errorf("gpt-5.5-codex at 200,001: %v, want ccusage's 1.14501", got)
	}
}

func TestQuirksCountOnlyCorrected(t *testing.T) {
	r := rec(1, 0, false, 5, 1, "2026-03-01T10:00:00Z")
	r.Quirk = true
	f := claudeFile("a", r)
	if rep := Build([]agent.FileUsage{f}, Options{Kind: Daily}); rep.Totals.Input != 0 || rep.Skipped != 1 {
		t.Fatalf("default: %+v", rep)
	}
	if rep := Build([]agent.FileUsage{f}, Options{Kind: Daily, Corrected: true}); rep.Totals.Input != 5 {
		t.Fatalf("corrected: %+v", rep)
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/internal/todayspend"
)

func copyTestdata(t *testing.T, dst string, src ...string) {
	t.Helper()
	b, err := os.ReadFile(testutil.Testdata(t, src...))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// `tether usage --json` over real transcripts: the schema holds, the
// fork's copies of its parent's responses count once, the models nobody
// prices are named.
func TestUsageJSON(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	copyTestdata(t, filepath.Join(proj, "b.jsonl"), "claude-code-2.1.332", "golden-fork.jsonl")
	copyTestdata(t, filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "01", "01", "rollout-a.jsonl"), "codex-0.171.0", "golden-rollout-exec-resume.jsonl")
	if code := ta.run("usage", "daily", "--json", "--timezone", "UTC"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	m := validate(t, "usage", ta.out.Bytes())
	days := m["daily"].([]any)
	if len(days) != 1 {
		t.Fatalf("days %v", days)
	}
	by := m["totals"].(map[string]any)["byHarness"].(map[string]any)
	cl, cx := by["claude-code"].(map[string]any), by["codex"].(map[string]any)
	// ccusage 20.0.24 on the same files: claude 500/50/0/5000, codex
	// 300 (uncached)/30/3000 cached, total 3330.
	if cl["inputTokens"] != 500.0 || cl["cacheReadTokens"] != 5000.0 || cl["outputTokens"] != 50.0 {
		t.Errorf("claude %v", cl)
	}
	if cx["inputTokens"] != 300.0 || cx["cacheReadTokens"] != 3000.0 || cx["totalTokens"] != 3330.0 {
		t.Errorf("codex %v", cx)
	}
	// Both as ccusage names them: the fake API's models.
	if u := m["unpricedModels"].([]any); len(u) != 2 || u[0] != "claude-opus-5-5" || u[1] != "fake-model" {
		t.Errorf("unpriced %v", u)
	}
	ta.out.Reset()
	if code := ta.run("usage", "model", "--harness", "codex"); code != 0 || !strings.Contains(ta.err.String(), "no price for fake-model") {
		t.Errorf("table: exit %d, stderr %q", code, ta.err)
	}
	if !strings.Contains(ta.out.String(), "TOTAL") {
		t.Errorf("table:\n%s", ta.out)
	}
	// The first report (every harness) left today's spend for the
	// statusLine: none of these transcripts is of today.
	if sp, ok := todayspend.Read(todayspend.File(ta.Loc.CacheDir), ta.Now().Format(time.DateOnly)); !ok || sp.CostUSD != 0 {
		t.Errorf("today's spend %+v %v", sp, ok)
	}
	// show gives a session's spend: the fork's copies are the parent's.
	ta.out.Reset()
	if code := ta.run("sessions", "show", "--json", "claude-code:a"); code != 0 {
		t.Fatalf("show: %d %s", code, ta.err)
	}
	sp := validate(t, "show", ta.out.Bytes())["spend"].(map[string]any)
	if sp["totalTokens"] != 4440.0 || sp["unpriced"] != true {
		t.Errorf("spend %v", sp)
	}
}

func TestUsageBadArguments(t *testing.T) {
	for _, args := range [][]string{{"usage", "hourly"}, {"usage", "--since", "March"}, {"usage", "--timezone", "Mars/Base"}, {"usage", "--harness", "vim"}} {
		ta := newTestApp(t)
		if code := ta.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, ta.err)
		}
	}
	ta := newTestApp(t)
	bad := filepath.Join(ta.home, "prices.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := ta.run("usage", "--pricing", bad); code != 1 || !strings.Contains(ta.err.String(), bad) {
		t.Errorf("--pricing broken: exit %d %s", code, ta.err)
	}
}

func TestUsageEmpty(t *testing.T) {
	ta := newTestApp(t)
	if code := ta.run("usage"); code != 0 || !strings.Contains(ta.out.String(), "no usage recorded") {
		t.Fatalf("exit %d out %q err %q", code, ta.out, ta.err)
	}
}

// sessions --cost adds COST and spend, as show has them.
func TestSessionsListCost(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	if code := ta.run("sessions", "list", "--cost"); code != 0 || !strings.Contains(ta.out.String(), "COST") || !strings.Contains(ta.out.String(), "$0.00") {
		t.Fatalf("exit %d\n%s%s", code, ta.out, ta.err)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--cost", "--json"); code != 0 {
		t.Fatal(ta.err)
	}
	s := validate(t, "list", ta.out.Bytes())["sessions"].([]any)[0].(map[string]any)
	if sp, ok := s["spend"].(map[string]any); !ok || sp["totalTokens"] != 4440.0 {
		t.Fatalf("spend %v", s["spend"])
	}
}

// usageTotals runs `tether usage --json` and returns its totals by
// harness.
func usageTotals(t *testing.T, ta *testApp) map[string]any {
	t.Helper()
	ta.out.Reset()
	if code := ta.run("usage", "--json", "--timezone", "UTC"); code != 0 {
		t.Fatalf("usage: exit %d: %s", code, ta.err)
	}
	return validate(t, "usage", ta.out.Bytes())["totals"].(map[string]any)["byHarness"].(map[string]any)
}

// A transcript the agent deleted still counts, from tether's archive
// (linked or a compressed copy), and only once: a copy of one still
// there is not counted, and the fork that repeats the deleted parent's
// responses is deduplicated with the archived parent as it was with the
// live one.
func TestUsageCountsArchivedTranscripts(t *testing.T) {
	for _, mode := range []string{"link", "copy"} {
		t.Run(mode, func(t *testing.T) {
			ta := newTestApp(t)
			ta.config(t, "[archive]\nmode = \""+mode+"\"\n")
			proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
			parent := filepath.Join(proj, "a.jsonl")
			rollout := filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "01", "01", "rollout-a.jsonl")
			copyTestdata(t, parent, "claude-code-2.1.332", "golden-tool-session.jsonl")
			copyTestdata(t, filepath.Join(proj, "b.jsonl"), "claude-code-2.1.332", "golden-fork.jsonl")
			copyTestdata(t, rollout, "codex-0.171.0", "golden-rollout-exec-resume.jsonl")
			before := usageTotals(t, ta)
			if code := ta.run("archive", "sync"); code != 0 {
				t.Fatalf("archive sync: exit %d: %s", code, ta.err)
			}
			if got := usageTotals(t, ta); !reflect.DeepEqual(got, before) {
				t.Errorf("archived, originals there: %v, want %v", got, before)
			}
			os.Remove(parent)
			os.Remove(rollout)
			if got := usageTotals(t, ta); !reflect.DeepEqual(got, before) {
				t.Errorf("originals deleted: %v, want %v", got, before)
			}
			// Without the archive's copies the deleted ones are lost.
			os.RemoveAll(ta.archiveDir())
			if got := usageTotals(t, ta); reflect.DeepEqual(got, before) {
				t.Errorf("no archive, still %v", got)
			}
		})
	}
}

// The picker's preview has the session's spend, as show has it, counted
// once for the whole picker run.
func TestPickPreviewSpend(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	c, err := ta.catalogFor("")
	if err != nil {
		t.Fatal(err)
	}
	ss, _, _ := c.List(context.Background(), catalog.ListOptions{})
	if len(ss) != 1 {
		t.Fatalf("listed %d sessions", len(ss))
	}
	spends := ta.spendsOnce(context.Background())
	text, err := ta.sessionPreview(context.Background(), c, ss[0], spends)
	if err != nil || !strings.Contains(text, "spend:") || !strings.Contains(text, "4.4k tokens") {
		t.Errorf("preview (%v):\n%s", err, text)
	}
}

// [catalog] cost = true in the config gives every table the COST column;
// --cost=false leaves it out again.
func TestSessionsListCostFromConfig(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	cfg := filepath.Join(ta.Loc.ConfigDir, "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[catalog]\ncost = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := ta.run("sessions"); code != 0 || !strings.Contains(ta.out.String(), "COST") {
		t.Fatalf("with cost = true: exit %d\n%s%s", code, ta.out, ta.err)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "--cost=false"); code != 0 || strings.Contains(ta.out.String(), "COST") {
		t.Fatalf("--cost=false: exit %d\n%s%s", code, ta.out, ta.err)
	}
}

// A report after appends to a transcript and a rollout, and a new
// transcript, is counted from the ledgers and the appended bytes alone
// (the per-file caches, removed, are not made again), and says what a
// full count says.
func TestUsageLedgerCountsWhatWasAppended(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	rollout := filepath.Join(ta.env["CODEX_HOME"], "sessions", "2026", "01", "01", "rollout-a.jsonl")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	copyTestdata(t, rollout, "codex-0.171.0", "golden-rollout-exec-resume.jsonl")
	report := func() string {
		t.Helper()
		ta.out.Reset()
		if code := ta.run("usage", "session", "--json", "--timezone", "UTC"); code != 0 {
			t.Fatalf("exit %d: %s", code, ta.err)
		}
		return ta.out.String()
	}
	report()
	caches, _ := filepath.Glob(filepath.Join(ta.Loc.CacheDir, "catalog-*-usage.gob"))
	if len(caches) != 2 {
		t.Fatalf("per-file caches %v", caches)
	}
	for _, c := range caches {
		os.Remove(c)
	}
	appendLine(t, filepath.Join(proj, "a.jsonl"), `{"type":"assistant","timestamp":"2026-03-01T10:00:00.000Z","sessionId":"a","requestId":"req_new","message":{"id":"msg_new","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":3,"output_tokens":2}}}`)
	appendLine(t, rollout, `{"timestamp":"2026-03-01T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":7,"output_tokens":1}}}}`)
	b := filepath.Join(proj, "b.jsonl")
	if err := os.WriteFile(b, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	appendLine(t, b, `{"type":"assistant","timestamp":"2026-03-02T10:00:00.000Z","sessionId":"b","requestId":"req_b","message":{"id":"msg_b","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":5,"output_tokens":1}}}`)
	got := report()
	if again, _ := filepath.Glob(filepath.Join(ta.Loc.CacheDir, "catalog-*-usage.gob")); len(again) != 0 {
		t.Errorf("counted in full (%v made again)", again)
	}
	if !strings.Contains(got, `"inputTokens":7`) && !strings.Contains(got, `"inputTokens": 7`) {
		t.Errorf("the rollout's appended count is missing:\n%s", got)
	}
	ledgers, _ := filepath.Glob(filepath.Join(ta.Loc.CacheDir, "usage-*.ledger*"))
	for _, l := range ledgers {
		os.Remove(l)
	}
	if want := report(); got != want {
		t.Errorf("from the ledgers:\n%s\nin full:\n%s", got, want)
	}
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

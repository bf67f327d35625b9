//go:build e2e

// Summaries with the real Claude Code as the provider, and the anthropic
// provider, against the fake API: what is sent, that no session is added
// to the history, that the summary shows in show/list --json, that a
// cache hit sends nothing and that a failure stores nothing.
package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

const e2eSummary = `{"title":"Plan the walrus parser","objective":"plan a parser","completed":"a first plan","currentWork":"the second step","likelyNext":"write the lexer"}`

// isSummaryRequest tells tether's summary requests (tools off, so the
// default classifier would call them side requests) from the rest.
func isSummaryRequest(r fakeapi.Request) bool {
	return strings.Contains(r.System, "You summarize a coding-agent session")
}

// projectFiles lists every file under projects/.
func projectFiles(t *testing.T, env *harness.Env) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(env.ClaudeConfigDir, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func summaryRequests(api *fakeapi.Server) []fakeapi.Request {
	var out []fakeapi.Request
	for _, r := range api.Requests() {
		if r.IsModelCall() && isSummaryRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

func TestSummarizeRealClaude(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !isSummaryRequest(r) && fakeapi.IsSideRequest(r) })
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("walrus")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "walrus plan the parser")
	if again := claudeP(t, env, clis.Claude, dir, "-p", "--resume", sid, "walrus second step"); again != sid {
		t.Fatalf("resume changed the id")
	}
	other := claudeP(t, env, clis.Claude, dir, "-p", "walrus other session")
	os.MkdirAll(filepath.Join(env.Home, ".config", "tether"), 0o700)
	os.WriteFile(filepath.Join(env.Home, ".config", "tether", "config.toml"),
		[]byte("[summarize]\nprovider = \"claude\"\nmodel = \"claude-summary-small\"\n"), 0o600)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	bin := harness.Tether(t)
	data := filepath.Join(env.Home, ".local", "share", "tether", "summaries", "claude-code")

	before := projectFiles(t, env)
	api.Enqueue(fakeapi.Text(e2eSummary))
	res := env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", sid)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "summarized  Plan the walrus parser") {
		t.Fatalf("summarize: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	reqs := summaryRequests(api)
	if len(reqs) != 1 {
		t.Fatalf("%d summary requests, want 1", len(reqs))
	}
	sent := reqs[0]
	if sent.Model != "claude-summary-small" || len(sent.Tools) != 0 {
		t.Errorf("request model %q, tools %v", sent.Model, sent.Tools)
	}
	if u := sent.LastUserText(); !strings.Contains(u, "walrus plan the parser") || !strings.Contains(u, "walrus second step") {
		t.Errorf("the session's prompts are not in the request:\n%s", u)
	}
	if after := projectFiles(t, env); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("the summary run changed projects/:\nbefore %v\nafter  %v", before, after)
	}
	if st, err := os.Stat(filepath.Join(data, sid+".json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("stored summary: %v", err)
	}

	// show and list --json carry it.
	code, out, errOut := tether(t, env, "sessions", "show", sid, "--json")
	var shown struct {
		Summary *struct {
			Title, CurrentWork string
			Current            bool
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Summary == nil || shown.Summary.Title != "Plan the walrus parser" || !shown.Summary.Current {
		t.Errorf("show --json: %d %s %s", code, out, errOut)
	}
	code, out, _ = tether(t, env, "sessions", "list", "--json")
	var listed struct {
		Sessions []struct {
			ID      string
			Summary *struct{ Title string }
		}
	}
	json.Unmarshal([]byte(out), &listed)
	found := false
	for _, s := range listed.Sessions {
		if s.ID == sid && s.Summary != nil && s.Summary.Title == "Plan the walrus parser" {
			found = true
		}
	}
	if code != 0 || !found {
		t.Errorf("list --json lacks the summary:\n%s", out)
	}

	// A cache hit sends nothing.
	n := len(api.Requests())
	res = env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", sid)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "current") || len(api.Requests()) != n {
		t.Errorf("cache hit: exit %d, %d requests sent\n%s", res.ExitCode, len(api.Requests())-n, res.Stderr)
	}

	// A failing provider (an invalid reply, then an API error) leaves
	// nothing behind.
	for _, reply := range []fakeapi.Reply{fakeapi.Text("I could not summarize this."), fakeapi.Overloaded()} {
		api.Enqueue(reply)
		res = env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", other)
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, "session "+other[:8]+": provider claude:") {
			t.Errorf("failure %s: exit %d\n%s", reply.Describe(), res.ExitCode, res.Stderr)
		}
		if _, err := os.Stat(filepath.Join(data, other+".json")); !os.IsNotExist(err) {
			t.Errorf("failure %s stored a summary", reply.Describe())
		}
	}
	if after := projectFiles(t, env); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("failed runs changed projects/: %v", after)
	}

	// Claude Code 2.0.77 has --no-session-persistence too: it works as
	// the provider.
	env.Setenv("TETHER_CLAUDE_BIN", clis.ClaudeOld)
	api.Enqueue(fakeapi.Text(e2eSummary))
	res = env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", other)
	if res.ExitCode != 0 {
		t.Errorf("2.0.77 as provider: exit %d\n%s", res.ExitCode, res.Stderr)
	}
	if after := projectFiles(t, env); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("2.0.77 summary run changed projects/: %v", after)
	}
}

func TestSummarizeAnthropicProvider(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !isSummaryRequest(r) && fakeapi.IsSideRequest(r) })
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("anth")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "narwhal fix the build")
	bin := harness.Tether(t)
	api.Enqueue(fakeapi.Text(e2eSummary))
	res := env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", "--provider", "anthropic", "--model", "claude-api-small", sid)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode, res.Stderr)
	}
	reqs := summaryRequests(api)
	if len(reqs) != 1 || reqs[0].Model != "claude-api-small" || reqs[0].Header.Get("X-Api-Key") == "" ||
		!strings.Contains(reqs[0].LastUserText(), "narwhal fix the build") {
		t.Fatalf("requests: %+v", reqs)
	}
	code, out, _ := tether(t, env, "sessions", "show", sid, "--json")
	if code != 0 || !strings.Contains(out, `"provider": "anthropic"`) {
		t.Errorf("show: %s", out)
	}
	// The key is never logged.
	logData, _ := os.ReadFile(filepath.Join(env.Home, ".local", "state", "tether", "events.jsonl"))
	if strings.Contains(string(logData), harness.AnthropicKey) || strings.Contains(string(logData), "narwhal") {
		t.Errorf("the log holds the key or the prompt:\n%s", logData)
	}
}

func TestSummarizeRealCodex(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("codexsum")
	res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "okapi tidy the imports")
	if res.ExitCode != 0 {
		t.Fatalf("codex: exit %d: %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts %v", rollouts)
	}
	id := strings.TrimSuffix(filepath.Base(rollouts[0]), ".jsonl")
	id = id[len(id)-36:]
	env.Setenv("TETHER_CODEX_BIN", clis.Codex)
	bin := harness.Tether(t)
	n := len(api.ModelRequests())
	api.Enqueue(fakeapi.Text(e2eSummary))
	res = env.Run(context.Background(), "tether", bin, dir, "sessions", "summarize", "--provider", "codex", "codex:"+id)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "summarized  Plan the walrus parser") {
		t.Fatalf("summarize: exit %d\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	reqs := api.ModelRequests()[n:]
	if len(reqs) != 1 || !strings.Contains(reqs[0].LastUserText(), "okapi tidy the imports") || !strings.Contains(reqs[0].LastUserText(), "Session evidence") {
		t.Errorf("codex summary requests: %d", len(reqs))
	}
	if after := env.CodexRollouts(); len(after) != 1 {
		t.Errorf("codex exec --ephemeral wrote a rollout: %v", after)
	}
}

// With [summarize] auto = true, SessionEnd starts the summary in the
// background: the session gets one, and the summary run (whose own hooks
// return at once under TETHER_IN_HOOK) starts no other.
func TestSummarizeAutoAfterSessionEnd(t *testing.T) {
	clis := harness.CLIs(t)
	env, api, bin := hooksEnv(t)
	api.SetSideClassifier(func(r fakeapi.Request) bool { return !isSummaryRequest(r) && fakeapi.IsSideRequest(r) })
	api.SetResponder(func(r fakeapi.Request) (fakeapi.Reply, bool) {
		return fakeapi.Text(e2eSummary), isSummaryRequest(r)
	})
	runTether(t, env, bin, "hooks", "install")
	os.MkdirAll(filepath.Join(env.Home, ".config", "tether"), 0o700)
	os.WriteFile(filepath.Join(env.Home, ".config", "tether", "config.toml"),
		[]byte("[summarize]\nprovider = \"claude\"\nauto = true\n"), 0o600)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	dir := env.ProjectDir("auto")
	sid := claudeP(t, env, clis.Claude, dir, "-p", "ibex write the changelog")
	path := filepath.Join(env.Home, ".local", "share", "tether", "summaries", "claude-code", sid+".json")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(env.Home, ".local", "state", "tether", "events.jsonl"))
			t.Fatalf("no summary after SessionEnd; log:\n%s", log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	recs := records(t, env, sid, "summary_written")
	if n := len(find(recs, "summary_auto_start")); n != 1 {
		t.Errorf("%d background starts for %s", n, sid)
	}
	time.Sleep(2 * time.Second)
	reqs := summaryRequests(api)
	if len(reqs) != 1 {
		t.Fatalf("%d summary requests, want 1", len(reqs))
	}
	// The default model is the "haiku" alias, which Claude Code resolves.
	if !strings.Contains(reqs[0].LastUserText(), "ibex write the changelog") || !strings.Contains(reqs[0].Model, "haiku") {
		t.Errorf("summary request: model %q, text %.200q", reqs[0].Model, reqs[0].LastUserText())
	}
}

// tether run --handoff: when the session that cannot be resumed has a
// summary covering it up to the failed attempt, the fresh session gets
// the summary instead of the fixed excerpt.
func TestSummaryInHandoff(t *testing.T) {
	clis := harness.CLIs(t)
	env, api, bin := wrapEnv(t, clis.Claude)
	ctx := context.Background()
	dir := env.ProjectDir("handoff")
	sj := []string{"--output-format", "stream-json", "--verbose"}
	r := env.Run(ctx, "tether run claude", bin, dir, append([]string{"run", "claude", "-p", "hello"}, sj...)...)
	if r.ExitCode != 0 {
		t.Fatalf("session: exit %d", r.ExitCode)
	}
	sid := sessionOf(t, r)
	script := filepath.Join(env.Home, "provider.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho '"+e2eSummary+"'\n"), 0o700)
	os.MkdirAll(filepath.Join(env.Home, ".config", "tether"), 0o700)
	os.WriteFile(filepath.Join(env.Home, ".config", "tether", "config.toml"),
		[]byte("[summarize]\nprovider = \"command\"\ncommand = [\""+script+"\"]\n"), 0o600)
	if r := env.Run(ctx, "tether", bin, dir, "sessions", "summarize", sid); r.ExitCode != 0 {
		t.Fatalf("summarize: exit %d: %s", r.ExitCode, r.Stderr)
	}
	api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
		if len(req.UserTexts()) > 1 {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Reply{}, false
	})
	r = env.Run(ctx, "tether run claude too long", bin, dir, append([]string{"run", "--handoff", "claude", "-p", "--resume", sid, "more"}, sj...)...)
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, "could not be resumed (prompt too long)") {
		t.Fatalf("fallback: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	last, ok := api.LastModelRequest()
	if !ok || !strings.Contains(last.System, "- Summary: Plan the walrus parser") || !strings.Contains(last.System, "- Where it stopped: the second step") ||
		strings.Contains(last.System, "First request: hello") {
		t.Errorf("the fresh session's system prompt lacks the summary:\n%.3000s", last.System)
	}
}

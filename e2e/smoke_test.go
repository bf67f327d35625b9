//go:build e2e

// Smoke tests of the e2e harness against the real, pinned CLIs.
// Run with: go test -tags e2e ./e2e/... -run Smoke -v
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

func startAPI(t *testing.T) *fakeapi.Server {
	t.Helper()
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	api.SetLogger(t.Logf)
	return api
}

// readJSONL reads a JSONL file, skipping lines that do not parse.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)

// requireClaudeOK checks exit 0 and the final result text, and returns the
// session id.
func requireClaudeOK(t *testing.T, res harness.Result, wantText string) string {
	t.Helper()
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d (err %v); stderr:\n%s", res.ExitCode, res.Err, res.Stderr)
	}
	final, ok := res.ClaudeResult()
	if !ok {
		t.Fatalf("no result event in stream-json output:\n%s", res.Stdout)
	}
	if final["result"] != wantText || final["is_error"] == true {
		t.Fatalf("result = %v (is_error %v), want %q", final["result"], final["is_error"], wantText)
	}
	sid, _ := final["session_id"].(string)
	if sid == "" {
		t.Fatalf("no session_id in %v", final)
	}
	return sid
}

// requireTranscript checks that the session transcript exists where Claude
// Code keeps it for dir and returns its records.
func requireTranscript(t *testing.T, env *harness.Env, dir, sid string) []map[string]any {
	t.Helper()
	path := filepath.Join(env.ClaudeConfigDir, "projects", nonAlnum.ReplaceAllString(dir, "-"), sid+".jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("transcript %s missing (have %v): %v", path, env.ClaudeTranscripts(), err)
	}
	recs := readJSONL(t, path)
	t.Logf("transcript %s: %d records", path, len(recs))
	return recs
}

func TestSmokeClaude(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeVersion, clis.Claude},
		{harness.ClaudeOldVersion, clis.ClaudeOld},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			t.Run("hello", func(t *testing.T) {
				api := startAPI(t)
				env := harness.NewEnv(t, api)
				dir := env.ProjectDir("hello")
				res := env.Claude(context.Background(), c.bin, dir, "-p", "hello", "--output-format", "stream-json", "--verbose")
				sid := requireClaudeOK(t, res, "ok")
				recs := requireTranscript(t, env, dir, sid)
				var sawPrompt, sawReply bool
				for _, r := range recs {
					msg, _ := r["message"].(map[string]any)
					if r["type"] == "user" && msg["content"] == "hello" {
						sawPrompt = true
					}
					if r["type"] == "assistant" && strings.Contains(mustJSON(t, msg["content"]), `"ok"`) {
						sawReply = true
					}
				}
				if !sawPrompt || !sawReply {
					t.Errorf("transcript lacks the prompt (%v) or the reply (%v)", sawPrompt, sawReply)
				}
				req, ok := api.LastModelRequest()
				if !ok || !strings.Contains(req.LastUserText(), "hello") {
					t.Errorf("fake API did not get the prompt: %+v", req.Messages)
				}
				t.Logf("requests: %d total, %d main; model %s", len(api.Requests()), len(api.ModelRequests()), req.Model)
			})

			t.Run("tools", func(t *testing.T) {
				api := startAPI(t)
				env := harness.NewEnv(t, api)
				dir := env.ProjectDir("tools")
				file := filepath.Join(dir, "notes.txt")
				if err := os.WriteFile(file, []byte("the secret word is pineapple\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				allow := []string{"--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose"}

				// Turn 1: default rule, a Bash tool call of `echo hi`, then "Done.".
				res := env.Claude(context.Background(), c.bin, dir, append([]string{"-p", "TOOL_BASH please"}, allow...)...)
				sid := requireClaudeOK(t, res, "Done.")
				last, _ := api.LastModelRequest()
				if tr := last.AllToolResults(); len(tr) != 1 || strings.TrimSpace(tr[0].Content) != "hi" || tr[0].IsError {
					t.Fatalf("Bash tool result sent back = %+v", tr)
				}

				// Turn 2, resumed: a scripted Read with exact usage numbers.
				usage := fakeapi.Usage{InputTokens: 11, CacheCreationInputTokens: 2222, CacheReadInputTokens: 33333, OutputTokens: 44}
				api.Enqueue(fakeapi.Read(file).Then(fakeapi.Text("Read it.").WithUsage(usage)))
				res = env.Claude(context.Background(), c.bin, dir, append([]string{"-p", "--resume", sid, "read the notes"}, allow...)...)
				if sid2 := requireClaudeOK(t, res, "Read it."); sid2 != sid {
					t.Errorf("resume changed the session id: %s -> %s", sid, sid2)
				}
				if api.Pending() != 0 {
					t.Errorf("%d scripted replies left", api.Pending())
				}
				last, _ = api.LastModelRequest()
				uses, results := last.AllToolUses(), last.AllToolResults()
				if len(uses) != 2 || uses[0].Name != "Bash" || uses[1].Name != "Read" {
					t.Fatalf("history sent: tool uses %+v", uses)
				}
				if len(results) != 2 || !strings.Contains(results[1].Content, "pineapple") {
					t.Fatalf("history sent: tool results %+v", results)
				}
				if got := last.UserTexts(); !containsText(got, "TOOL_BASH please") || !containsText(got, "read the notes") {
					t.Errorf("history sent lacks a prompt: %q", got)
				}

				// The transcript has both tool calls and the exact usage of the last reply.
				recs := requireTranscript(t, env, dir, sid)
				var tools []string
				var lastUsage map[string]any
				for _, r := range recs {
					if r["type"] != "assistant" {
						continue
					}
					msg, _ := r["message"].(map[string]any)
					if msg["model"] == "<synthetic>" {
						continue
					}
					lastUsage, _ = msg["usage"].(map[string]any)
					blocks, _ := msg["content"].([]any)
					for _, b := range blocks {
						if bm, _ := b.(map[string]any); bm["type"] == "tool_use" {
							tools = append(tools, bm["name"].(string))
						}
					}
				}
				if strings.Join(tools, ",") != "Bash,Read" {
					t.Errorf("transcript tool calls = %v", tools)
				}
				for k, want := range map[string]int{"input_tokens": 11, "cache_creation_input_tokens": 2222, "cache_read_input_tokens": 33333, "output_tokens": 44} {
					if got, _ := lastUsage[k].(float64); int(got) != want {
						t.Errorf("transcript usage %s = %v, want %d (%v)", k, lastUsage[k], want, lastUsage)
					}
				}
			})
		})
	}
}

func TestSmokeCodex(t *testing.T) {
	t.Parallel()
	clis := harness.CLIs(t)
	t.Run("hello", func(t *testing.T) {
		api := startAPI(t)
		env := harness.NewEnv(t, api)
		dir := env.ProjectDir("hello")
		api.Enqueue(fakeapi.Text("ok").WithUsage(fakeapi.Usage{InputTokens: 5, CacheCreationInputTokens: 600, CacheReadInputTokens: 7000, OutputTokens: 80}))
		res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "hello")
		if res.ExitCode != 0 {
			t.Fatalf("codex exited %d: %s", res.ExitCode, res.Stderr)
		}
		if strings.TrimSpace(res.Stdout) != "ok" {
			t.Errorf("stdout = %q, want the final message ok", res.Stdout)
		}
		req, ok := api.LastModelRequest()
		if !ok || req.LastUserText() != "hello" || req.API != fakeapi.APIOpenAI {
			t.Errorf("fake API got %+v", req.Messages)
		}
		recs := requireRollout(t, env, "hello", "")
		// The usage of the reply reaches the rollout's token_count.
		var last map[string]any
		for _, r := range recs {
			if p, _ := r["payload"].(map[string]any); r["type"] == "event_msg" && p["type"] == "token_count" {
				last, _ = get(p, "info", "last_token_usage").(map[string]any)
			}
		}
		for k, want := range map[string]int{"input_tokens": 7605, "cached_input_tokens": 7000, "cache_write_input_tokens": 600, "output_tokens": 80} {
			if got, _ := last[k].(float64); int(got) != want {
				t.Errorf("rollout last_token_usage.%s = %v, want %d (%v)", k, last[k], want, last)
			}
		}
	})

	t.Run("function-call", func(t *testing.T) {
		api := startAPI(t)
		env := harness.NewEnv(t, api)
		dir := env.ProjectDir("fc")
		res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "TOOL_BASH please")
		if res.ExitCode != 0 {
			t.Fatalf("codex exited %d: %s", res.ExitCode, res.Stderr)
		}
		if strings.TrimSpace(res.Stdout) != "Done." {
			t.Errorf("stdout = %q, want Done.", res.Stdout)
		}
		reqs := api.ModelRequests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
		t.Logf("codex offers tools %v", reqs[0].Tools)
		uses, results := reqs[1].AllToolUses(), reqs[1].AllToolResults()
		if len(uses) != 1 || len(results) != 1 || uses[0].ID != results[0].ID || !strings.Contains(results[0].Content, "hi") {
			t.Fatalf("function call round trip: uses %+v results %+v", uses, results)
		}
		requireRollout(t, env, "TOOL_BASH please", "function_call")
	})
}

func containsText(texts []string, want string) bool {
	for _, s := range texts {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// requireRollout checks that exactly one rollout exists, has the prompt as
// a user message and, if wantItem is set, a response_item of that type, and
// returns its records.
func requireRollout(t *testing.T, env *harness.Env, prompt, wantItem string) []map[string]any {
	t.Helper()
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts under %s/sessions: %v", env.CodexHome, rollouts)
	}
	recs := readJSONL(t, rollouts[0])
	var sawPrompt, sawItem bool
	for _, r := range recs {
		p, _ := r["payload"].(map[string]any)
		if r["type"] == "response_item" && p["type"] == "message" && p["role"] == "user" && strings.Contains(mustJSON(t, p["content"]), mustJSON(t, prompt)) {
			sawPrompt = true
		}
		if r["type"] == "response_item" && p["type"] == wantItem {
			sawItem = true
		}
	}
	if !sawPrompt {
		t.Errorf("rollout %s has no user_message %q", rollouts[0], prompt)
	}
	if wantItem != "" && !sawItem {
		t.Errorf("rollout %s has no %s item", rollouts[0], wantItem)
	}
	t.Logf("rollout %s: %d records", rollouts[0], len(recs))
	return recs
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func get(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

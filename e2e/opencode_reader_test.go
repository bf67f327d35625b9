//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// TestOpenCodeReader: a real OpenCode session with tool calls (read,
// then bash) is listed by tether with its title, counts, model, tokens
// and the context window of OpenCode's own config; shown by its short id
// with the file it read as evidence; and found by `tether sessions
// search` of a word of its prompt, from the index, twice (the second
// search reading nothing again).
func TestOpenCodeReader(t *testing.T) {
	harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := gitProject(t, env, "proj")
	// OpenCode's window for the model, as its config says: not tether's
	// default, so the list shows where it came from.
	cfg := env.OpenCodeConfig()
	cfg["provider"].(map[string]any)[harness.OpenCodeProvider].(map[string]any)["models"].(map[string]any)[harness.OpenCodeModel].(map[string]any)["limit"] =
		map[string]any{"context": 150000, "output": 8192}
	env.WriteOpenCodeConfig(cfg)

	api.Enqueue(fakeapi.CallTool("read", map[string]any{"filePath": dir + "/notes.txt"}).
		Then(fakeapi.CallTool("bash", map[string]any{"command": "echo hi-from-tool", "description": "Print a greeting"}).
			Then(fakeapi.Text("read it, said hi"))))
	id := openCodeSession(t, env, dir, "please read the zanzibar notes")

	code, out, errOut := tether(t, env, "sessions", "list", "--json", "--harness", "opencode")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var l struct {
		Sessions []struct {
			ID, Title, Model, Cwd string
			Messages              *int
			Counts                *struct{ HumanPrompts, Messages, ToolCalls int }
			Tokens                *struct{ Input, Output int64 }
			Context               *struct {
				Tokens, Window int64
				WindowKnown    bool
			}
			LastHumanActivity *string
		}
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Sessions) != 1 {
		t.Fatalf("list: %v\n%s", err, out)
	}
	s := l.Sessions[0]
	if s.ID != id || s.Title == "" || s.Model != harness.OpenCodeModel || s.Cwd != dir || s.LastHumanActivity == nil {
		t.Errorf("listed: %s", out)
	}
	if s.Counts == nil || s.Counts.HumanPrompts != 1 || s.Counts.ToolCalls != 2 || s.Messages == nil || *s.Messages != s.Counts.Messages || s.Counts.Messages < 4 {
		t.Errorf("counts: %+v messages %v", s.Counts, s.Messages)
	}
	if s.Tokens == nil || s.Tokens.Input == 0 || s.Tokens.Output == 0 {
		t.Errorf("tokens: %+v", s.Tokens)
	}
	if c := s.Context; c == nil || c.Tokens == 0 || c.Window != 150000 || !c.WindowKnown {
		t.Errorf("context: %+v", c)
	}

	// The table's short id resolves.
	code, table, _ := tether(t, env, "sessions", "--harness", "opencode")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("table: %s", table)
	}
	short := strings.Fields(lines[1])[1]
	if !strings.HasPrefix(id, "ses_"+short) {
		t.Fatalf("short id %q of %s", short, id)
	}
	code, shown, errOut := tether(t, env, "sessions", "show", "--json", short)
	if code != 0 {
		t.Fatalf("show %s: exit %d: %s", short, code, errOut)
	}
	var full struct {
		ID       string
		Evidence struct{ FilesRead []string }
	}
	json.Unmarshal([]byte(shown), &full)
	if full.ID != id || len(full.Evidence.FilesRead) != 1 || !strings.HasSuffix(full.Evidence.FilesRead[0], "/notes.txt") {
		t.Errorf("show: %s", shown)
	}

	for range 2 {
		code, found, errOut := tether(t, env, "sessions", "search", "--json", "zanzibar")
		if code != 0 || !strings.Contains(found, id) {
			t.Errorf("search: exit %d: %s %s", code, found, errOut)
		}
	}
	if code, found, _ := tether(t, env, "sessions", "search", "--json", "hi-from-tool"); code == 0 && strings.Contains(found, id) {
		t.Errorf("a tool's command found without --all-text: %s", found)
	}
	if code, found, errOut := tether(t, env, "sessions", "search", "--json", "--all-text", "hi-from-tool"); code != 0 || !strings.Contains(found, id) {
		t.Errorf("search --all-text: exit %d: %s %s", code, found, errOut)
	}
}

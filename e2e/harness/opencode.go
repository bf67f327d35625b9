package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OpenCode's side of the env: a provider "fake" speaking the Anthropic
// Messages API to the env's fake server, and its key in an environment
// variable, as /work/shared/notes/samples/opencode-1.18.33/produce.sh ran
// it. The model ids are the ones tether's tests expect.
const (
	OpenCodeKeyEnv   = "FAKE_ANTHROPIC_KEY"
	OpenCodeProvider = "fake"
	OpenCodeModel    = "fake-model"
	// OpenCodeContext is the context limit the config gives the model.
	OpenCodeContext = 200000
)

// OpenCodeConfigDir is $XDG_CONFIG_HOME/opencode (opencode.json, plugins/).
func (e *Env) OpenCodeConfigDir() string {
	return filepath.Join(e.Home, ".config", "opencode")
}

// OpenCodeDataDir is $XDG_DATA_HOME/opencode, where OpenCode keeps
// opencode.db.
func (e *Env) OpenCodeDataDir() string {
	return filepath.Join(e.Home, ".local", "share", "opencode")
}

// OpenCodeDB is the database OpenCode writes its sessions to.
func (e *Env) OpenCodeDB() string { return filepath.Join(e.OpenCodeDataDir(), "opencode.db") }

// OpenCodeConfig is the opencode.json the env writes: every tool allowed
// (no permission prompt can stall a headless run), no sharing, no
// update check.
func (e *Env) OpenCodeConfig() map[string]any {
	return map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       OpenCodeProvider + "/" + OpenCodeModel,
		"small_model": OpenCodeProvider + "/" + OpenCodeModel,
		"autoupdate":  false,
		"share":       "disabled",
		"provider": map[string]any{
			OpenCodeProvider: map[string]any{
				"npm":  "@ai-sdk/anthropic",
				"name": "Fake Anthropic",
				"options": map[string]any{
					"baseURL": e.API.URL() + "/v1",
					"apiKey":  "{env:" + OpenCodeKeyEnv + "}",
				},
				"models": map[string]any{
					OpenCodeModel: map[string]any{
						"name": "Fake Model", "tool_call": true,
						"limit": map[string]any{"context": OpenCodeContext, "output": 8192},
					},
				},
			},
		},
		"permission": map[string]any{"bash": "allow", "edit": "allow", "read": "allow", "external_directory": "allow"},
	}
}

func (e *Env) writeOpenCodeConfig() {
	e.T.Helper()
	e.WriteOpenCodeConfig(e.OpenCodeConfig())
}

// WriteOpenCodeConfig replaces $XDG_CONFIG_HOME/opencode/opencode.json.
func (e *Env) WriteOpenCodeConfig(cfg map[string]any) {
	e.T.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	if err := os.MkdirAll(e.OpenCodeConfigDir(), 0o755); err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	if err := os.WriteFile(filepath.Join(e.OpenCodeConfigDir(), "opencode.json"), b, 0o644); err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
}

// OpenCode runs OpenCode (bin) in dir with args, stdin /dev/null, within
// e.Timeout (and ctx).
func (e *Env) OpenCode(ctx context.Context, bin, dir string, args ...string) Result {
	e.T.Helper()
	return e.Run(ctx, "opencode", bin, dir, args...)
}

// OpenCodePrompt runs `opencode run --format json [args...]` in dir with
// prompt on stdin: OpenCode stores a prompt given as an argument wrapped
// in quotes when it has spaces, one read from stdin as it is.
func (e *Env) OpenCodePrompt(ctx context.Context, bin, dir, prompt string, args ...string) Result {
	e.T.Helper()
	if prompt == "" {
		e.T.Fatalf("e2e: OpenCodePrompt needs a prompt")
	}
	return e.RunInput(ctx, "opencode", bin, dir, prompt, append([]string{"run", "--format", "json"}, args...)...)
}

// OpenCodeEvents parses `opencode run --format json` output: one JSON
// object a line ({"type": "step_start"|"text"|"tool_use"|"step_finish"|
// "error", "sessionID": …, "part"|"error": …}); other lines are skipped.
func (r Result) OpenCodeEvents() []map[string]any { return r.ClaudeEvents() }

// OpenCodeSession is the session id of a `run --format json` output.
func (r Result) OpenCodeSession() (string, error) {
	for _, ev := range r.OpenCodeEvents() {
		if id, _ := ev["sessionID"].(string); id != "" {
			return id, nil
		}
	}
	return "", fmt.Errorf("opencode printed no sessionID (exit %d): %s", r.ExitCode, clip(r.Stdout+r.Stderr))
}

// OpenCodeText is the assistant text of a `run --format json` output.
func (r Result) OpenCodeText() string {
	var b strings.Builder
	for _, ev := range r.OpenCodeEvents() {
		if ev["type"] != "text" {
			continue
		}
		if part, ok := ev["part"].(map[string]any); ok {
			s, _ := part["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

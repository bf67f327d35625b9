//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// openCodeHooksEnv is a hooks env for OpenCode with tether's plugin
// installed. OpenCode installs @opencode-ai/plugin (npm) into its config
// directory before it loads any plugin and waits for it: offline that is
// about 70 s of npm's retries at every start. npm's offline mode makes it
// fail at once; tether's plugin needs nothing of it.
func openCodeHooksEnv(t *testing.T) (*harness.Env, *fakeapi.Server, string, string) {
	t.Helper()
	harness.CLIs(t)
	env, api, bin := hooksEnv(t)
	if err := os.WriteFile(filepath.Join(env.Home, ".npmrc"), []byte("offline=true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := gitProject(t, env, "proj")
	return env, api, bin, dir
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestOpenCodeHooks: with tether's plugin installed, a real OpenCode
// session with a tool call is logged (session_spawn, turn_end with the
// tokens the fake reported and their share of the config's context
// limit), its resume too; the prompt segment shows the percent; the log
// holds no prompt or answer text; the turn's end exported the session
// into tether's archive in the background; uninstall leaves OpenCode's config
// directory as it was.
func TestOpenCodeHooks(t *testing.T) {
	env, api, bin, dir := openCodeHooksEnv(t)
	env.Setenv("TETHER_OPENCODE_BIN", harness.CLIs(t).OpenCode)
	cfg := env.OpenCodeConfigDir()
	before := dirNames(t, cfg)
	res := runTether(t, env, bin, "hooks", "install", "--harness", "opencode")
	plugin := filepath.Join(cfg, "plugins", "tether.js")
	if !strings.Contains(res.Stdout, plugin) {
		t.Fatalf("install: %s", res.Stdout)
	}
	if out := runTether(t, env, bin, "hooks", "status").Stdout; !strings.Contains(out, plugin+": plugin") || !strings.Contains(out, "tether-hot hook --harness opencode") {
		t.Errorf("status:\n%s", out)
	}

	usage := fakeapi.Usage{InputTokens: 40000, CacheReadInputTokens: 10000, OutputTokens: 2000}
	api.Enqueue(fakeapi.CallTool("bash", map[string]any{"command": "echo hi-from-tool", "description": "Print a greeting"}).
		WithUsage(usage).Then(fakeapi.Text("the zanzibar tool said hi").WithUsage(usage)))
	id := openCodeSession(t, env, dir, "please greet the zanzibar way")
	recs := records(t, env, id, "session_end")
	spawn, ends := find(recs, "session_spawn"), find(recs, "turn_end")
	if len(spawn) != 1 || spawn[0].Get("harness").String() != "opencode" || spawn[0].Get("cwd").String() != dir {
		t.Errorf("session_spawn: %v", spawn)
	}
	// OpenCode's context in use is the last step's total: input, cache
	// and output.
	if len(ends) != 1 || ends[0].Get("tokens").Int() != 52000 || ends[0].Get("window").Int() != harness.OpenCodeContext || ends[0].Get("pct").Float() != 26 {
		t.Errorf("turn_end: %v", ends)
	}
	if seg := env.Run(context.Background(), "tether", bin, dir, "prompt", "--shell", "plain"); seg.ExitCode != 0 || !strings.Contains(seg.Stdout, "26%") {
		t.Errorf("prompt segment in %s: exit %d %q", dir, seg.ExitCode, seg.Stdout)
	}
	// The turn's end started the session's export into tether's archive,
	// in the background (OpenCode's own export, run by the full tether).
	stored := filepath.Join(env.Home, ".local", "share", "tether", "archive", "opencode", id+".json")
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if fi, err := os.Stat(stored); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no background export at %s: %v", stored, find(records(t, env, id, "session_end"), "archive_export_start"))
		}
	}
	if len(find(records(t, env, id, "archive_export_start"), "archive_export_start")) != 1 {
		t.Errorf("background exports: %v", recs)
	}

	openCodeSession(t, env, dir, "and once more", "--session", id)
	recs = records(t, env, id, "session_resume")
	if len(find(recs, "session_resume")) != 1 || len(find(recs, "turn_end")) != 2 {
		t.Errorf("resume: %v", recs)
	}
	data, _ := os.ReadFile(filepath.Join(env.Home, ".local", "state", "tether", "events.jsonl"))
	for _, text := range []string{"zanzibar", "hi-from-tool", "once more"} {
		if strings.Contains(string(data), text) {
			t.Errorf("the log holds %q", text)
		}
	}

	runTether(t, env, bin, "hooks", "uninstall", "--harness", "opencode")
	// OpenCode writes its .gitignore (node_modules, package.json, …) into
	// its config directory at its first start, plugin or not.
	before = append(before, ".gitignore")
	slices.Sort(before)
	if after := dirNames(t, cfg); !slices.Equal(after, before) {
		t.Errorf("%s after uninstall: %v, want %v", cfg, after, before)
	}
}

// TestOpenCodeHooksOverflow: a prompt the API refuses as too long is a
// turn_failure with prompt_too_long; OpenCode then compacts on its own
// (compact_start, compact_end, auto) and answers (turn_end, the first
// after the compaction), which starts the session's export.
func TestOpenCodeHooksOverflow(t *testing.T) {
	env, api, bin, dir := openCodeHooksEnv(t)
	runTether(t, env, bin, "hooks", "install", "--harness", "opencode")
	api.Enqueue(fakeapi.PromptTooLong(250000, harness.OpenCodeContext))
	res := env.OpenCodePrompt(context.Background(), harness.CLIs(t).OpenCode, dir, "a prompt far too long")
	// OpenCode exits 1 after any error, even one it recovered from.
	id, err := res.OpenCodeSession()
	if err != nil {
		t.Fatal(err)
	}
	recs := records(t, env, id, "session_end")
	var events []string
	for _, r := range recs {
		events = append(events, r.Get("event").String())
	}
	// The turn's end also starts the session's background export.
	want := []string{"session_spawn", "turn_failure", "compact_start", "compact_end", "turn_end", "archive_export_start", "session_end"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if f := find(recs, "turn_failure"); len(f) != 1 || f[0].Get("error").String() != "ContextOverflowError" || !f[0].Get("prompt_too_long").Bool() {
		t.Errorf("turn_failure: %v", f)
	}
	if c := find(recs, "compact_end"); len(c) != 1 || c[0].Get("trigger").String() != "auto" {
		t.Errorf("compact_end: %v", c)
	}
	if e := find(recs, "turn_end"); len(e) != 1 || !e[0].Get("first_after_compaction").Bool() {
		t.Errorf("turn_end: %v", e)
	}
}

// TestOpenCodeHooksCompaction: a turn that fills the context past
// OpenCode's threshold (the limit less the output reserve) makes it
// compact: compact_start and compact_end (auto) with the tokens before,
// and the usage unknown until the next turn.
func TestOpenCodeHooksCompaction(t *testing.T) {
	env, api, bin, dir := openCodeHooksEnv(t)
	runTether(t, env, bin, "hooks", "install", "--harness", "opencode")
	api.Enqueue(fakeapi.Text("a long answer").WithUsage(fakeapi.Usage{InputTokens: 195000, OutputTokens: 1000}))
	id := openCodeSession(t, env, dir, "fill the context")
	recs := records(t, env, id, "session_end")
	start, end := find(recs, "compact_start"), find(recs, "compact_end")
	if len(start) != 1 || len(end) != 1 || end[0].Get("trigger").String() != "auto" {
		t.Fatalf("compaction: %v", recs)
	}
	if end[0].Get("tokens_before").Int() != 196000 || end[0].Get("tokens_after_known").Bool() {
		t.Errorf("compact_end: %v", end[0])
	}
}

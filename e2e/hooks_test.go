//go:build e2e

// End-to-end scenarios of the hooks: 'tether hooks install' into the real
// CLIs' settings, real sessions against the fake API, and the lifecycle
// log and session state checked against what the fake reported.
package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/shquote"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/state"
)

// hooksEnv is a harness env with tether built and first on PATH.
func hooksEnv(t *testing.T) (*harness.Env, *fakeapi.Server, string) {
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	bin := harness.Tether(t)
	env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return env, api, bin
}

func runTether(t *testing.T, env *harness.Env, bin string, args ...string) harness.Result {
	t.Helper()
	res := env.Run(context.Background(), "tether", bin, env.Home, args...)
	if res.ExitCode != 0 {
		t.Fatalf("tether %v: exit %d\n%s", args, res.ExitCode, res.Stderr)
	}
	return res
}

// records returns the lifecycle log records of session sid, waiting up to
// 10 s for one with the event until (hooks can finish just after the CLI
// exits).
func records(t *testing.T, env *harness.Env, sid, until string) []gjson.Result {
	t.Helper()
	path := filepath.Join(env.Home, ".local", "state", "tether", "events.jsonl")
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		var out []gjson.Result
		done := false
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			r := gjson.Parse(l)
			if r.Get("session_id").String() != sid {
				continue
			}
			out = append(out, r)
			done = done || r.Get("event").String() == until
		}
		if done || time.Now().After(deadline) {
			if !done {
				t.Errorf("no %s record for %s; log:\n%s", until, sid, data)
			}
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func find(recs []gjson.Result, event string) []gjson.Result {
	var out []gjson.Result
	for _, r := range recs {
		if r.Get("event").String() == event {
			out = append(out, r)
		}
	}
	return out
}

func settingsEvents(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	gjson.GetBytes(data, "hooks").ForEach(func(k, _ gjson.Result) bool {
		evs = append(evs, k.Str)
		return true
	})
	sort.Strings(evs)
	return evs
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func TestHooksClaude(t *testing.T) {
	clis := harness.CLIs(t)
	for _, c := range []struct {
		version, bin string
		events       []string
	}{
		{harness.ClaudeVersion, clis.Claude, claude.HookEvents},
		{harness.ClaudeOldVersion, clis.ClaudeOld, claude.ClassicHookEvents},
	} {
		t.Run(c.version, func(t *testing.T) {
			env, api, bin := hooksEnv(t)
			env.Setenv("TETHER_CLAUDE_BIN", c.bin)
			runTether(t, env, bin, "hooks", "install")
			settings := filepath.Join(env.ClaudeConfigDir, "settings.json")
			if got := settingsEvents(t, settings); strings.Join(got, ",") != strings.Join(sorted(c.events), ",") {
				t.Fatalf("installed events %v, want %v", got, c.events)
			}
			status := runTether(t, env, bin, "hooks", "status")
			if !strings.Contains(status.Stdout, "the tether on PATH") {
				t.Errorf("status:\n%s", status.Stdout)
			}

			dir := env.ProjectDir("hooks")
			usage := fakeapi.Usage{InputTokens: 321, CacheCreationInputTokens: 4000, CacheReadInputTokens: 50000, OutputTokens: 12}
			api.Enqueue(fakeapi.Bash("echo hi").WithText("I'll run a command.").Then(fakeapi.Text("Done.").WithUsage(usage)))
			res := env.Claude(context.Background(), c.bin, dir, "-p", "TOOL_BASH please", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose")
			sid := requireClaudeOK(t, res, "Done.")
			recs := records(t, env, sid, hooks.EvSessionEnd)

			spawn := find(recs, hooks.EvSpawn)
			if len(spawn) != 1 || spawn[0].Get("cwd").String() != dir || spawn[0].Get("identity_root").String() != dir || spawn[0].Get("harness").String() != "claude-code" {
				t.Errorf("session_spawn: %v", spawn)
			}
			turns := find(recs, hooks.EvTurnEnd)
			if len(turns) != 1 || turns[0].Get("tokens").Int() != int64(usage.ContextTokens()) {
				t.Errorf("turn_end: %v, want tokens %d", turns, usage.ContextTokens())
			}
			if end := find(recs, hooks.EvSessionEnd); len(end) != 1 || end[0].Get("tokens").Int() != int64(usage.ContextTokens()) {
				t.Errorf("session_end: %v", end)
			}
			st, err := state.LatestForRoot(filepath.Join(env.Home, ".local", "state", "tether"), dir)
			if err != nil || st.SessionID != sid || st.Tokens != int64(usage.ContextTokens()) || !st.Ended {
				t.Errorf("state for the root: %+v %v", st, err)
			}
			if c.version != harness.ClaudeVersion {
				return
			}

			// Resume: SessionStart(resume) with the transcript's size.
			api.Enqueue(fakeapi.Text("again").WithUsage(fakeapi.Usage{InputTokens: 7, CacheReadInputTokens: 60000, OutputTokens: 3}))
			res = env.Claude(context.Background(), c.bin, dir, "-p", "--resume", sid, "once more", "--output-format", "stream-json", "--verbose")
			requireClaudeOK(t, res, "again")
			recs = records(t, env, sid, hooks.EvResume)
			if r := find(recs, hooks.EvResume); len(r) == 0 || r[0].Get("transcript_bytes").Int() == 0 {
				t.Errorf("session_resume: %v", r)
			}
			if turns = find(recs, hooks.EvTurnEnd); len(turns) < 2 || turns[len(turns)-1].Get("tokens").Int() != 60007 {
				t.Errorf("turn_end after resume: %v", turns)
			}

			// A subagent: SubagentStart and SubagentStop with its id.
			api.Enqueue(fakeapi.CallTool("Agent", map[string]any{"description": "say hi", "prompt": "say hi", "subagent_type": "general-purpose"}))
			res = env.Claude(context.Background(), c.bin, dir, "-p", "--resume", sid, "delegate", "--allowedTools", "Agent", "--output-format", "stream-json", "--verbose")
			for _, r := range api.Requests() {
				t.Logf("served: %s", r.Served)
			}
			recs = records(t, env, sid, hooks.EvSubagentStop)
			starts, stops := find(recs, hooks.EvSubagentStart), find(recs, hooks.EvSubagentStop)
			if len(starts) != 1 || len(stops) != 1 || starts[0].Get("agent_id").String() == "" || stops[0].Get("agent_id").String() != starts[0].Get("agent_id").String() {
				t.Errorf("subagent events: start %v stop %v", starts, stops)
			}

			// A manual compaction: PreCompact and PostCompact with the
			// tokens before.
			res = env.Claude(context.Background(), c.bin, dir, "-p", "--resume", sid, "/compact", "--output-format", "stream-json", "--verbose")
			if res.ExitCode != 0 {
				t.Fatalf("/compact: exit %d", res.ExitCode)
			}
			recs = records(t, env, sid, hooks.EvCompacted)
			pre, post := find(recs, hooks.EvCompactStart), find(recs, hooks.EvCompactEnd)
			if len(pre) != 1 || pre[0].Get("trigger").String() != "manual" || pre[0].Get("tokens_before").Int() == 0 {
				t.Errorf("compact_start: %v", pre)
			}
			if len(post) != 1 || post[0].Get("tokens_before").Int() != pre[0].Get("tokens_before").Int() {
				t.Errorf("compact_end: %v", post)
			}
			// Claude fires PostCompact and SessionStart(compact) before the
			// compact boundary reaches the transcript, so the context after
			// it is reported only if it is in the file (the boundary's
			// postTokens), else marked unknown: never the stale
			// pre-compaction usage. The next turn has the real number.
			var postTokens int64
			for _, r := range requireTranscript(t, env, dir, sid) {
				if r["subtype"] == "compact_boundary" {
					postTokens = int64(get(r, "compactMetadata", "postTokens").(float64))
				}
			}
			for _, r := range append(post, find(recs, hooks.EvCompacted)...) {
				if v := r.Get("tokens_after"); (v.Exists() && v.Int() != postTokens) || (!v.Exists() && r.Get("tokens_after_known").Bool()) {
					t.Errorf("tokens after compaction: %s (boundary postTokens %d)", r.Raw, postTokens)
				}
			}
			next := fakeapi.Usage{InputTokens: 9, CacheCreationInputTokens: 900, CacheReadInputTokens: 2000, OutputTokens: 5}
			api.Enqueue(fakeapi.Text("after").WithUsage(next))
			requireClaudeOK(t, env.Claude(context.Background(), c.bin, dir, "-p", "--resume", sid, "go on", "--output-format", "stream-json", "--verbose"), "after")
			recs = records(t, env, sid, hooks.EvSessionEnd)
			turns = find(recs, hooks.EvTurnEnd)
			if last := turns[len(turns)-1]; last.Get("tokens").Int() != int64(next.ContextTokens()) || !last.Get("first_after_compaction").Bool() {
				t.Errorf("first turn after compaction: %s, want tokens %d", last.Raw, next.ContextTokens())
			}

			// A prompt too long: StopFailure, recognised.
			res = env.Claude(context.Background(), c.bin, dir, "-p", "TOO_LONG", "--output-format", "stream-json", "--verbose")
			final, _ := res.ClaudeResult()
			fsid, _ := final["session_id"].(string)
			if fsid == "" {
				t.Fatalf("no session id for the failing run: %s", res.Stdout)
			}
			recs = records(t, env, fsid, hooks.EvTurnFailure)
			// Once from StopFailure, or from SessionEnd when Claude exited
			// before its fire-and-forget StopFailure hook ran (twice only if
			// both raced).
			if f := find(recs, hooks.EvTurnFailure); len(f) < 1 || len(f) > 2 || !f[0].Get("prompt_too_long").Bool() {
				t.Errorf("turn_failure: %v", f)
			}
		})
	}
}

func TestHooksCodex(t *testing.T) {
	clis := harness.CLIs(t)
	env, api, bin := hooksEnv(t)
	runTether(t, env, bin, "hooks", "install", "--harness", "codex", "--trust")
	if got := settingsEvents(t, filepath.Join(env.CodexHome, "hooks.json")); strings.Join(got, ",") != strings.Join(sorted(codex.HookEvents), ",") {
		t.Fatalf("installed events %v", got)
	}
	dir := env.ProjectDir("codex-hooks")
	usage := fakeapi.Usage{InputTokens: 40, CacheCreationInputTokens: 500, CacheReadInputTokens: 6000, OutputTokens: 70}
	api.Enqueue(fakeapi.Bash("echo hi").Then(fakeapi.Text("Done.").WithUsage(usage)))
	// Trusted by --trust: no --dangerously-bypass-hook-trust needed.
	res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "TOOL_BASH please")
	if res.ExitCode != 0 {
		t.Fatalf("codex exited %d: %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	sid := gjson.Get(firstLine(t, rollouts[0]), "payload.id").String()
	recs := records(t, env, sid, hooks.EvSessionEnd)
	if s := find(recs, hooks.EvSpawn); len(s) != 1 || s[0].Get("harness").String() != "codex" {
		t.Errorf("session_spawn: %v", s)
	}
	turns := find(recs, hooks.EvTurnEnd)
	if len(turns) != 1 || turns[0].Get("tokens").Int() != int64(usage.ContextTokens()) || turns[0].Get("window").Int() == 0 || turns[0].Get("window_source").String() != "transcript" {
		t.Errorf("turn_end: %v, want tokens %d", turns, usage.ContextTokens())
	}
	// SessionEnd runs only if its trust record matched (Codex hashes it
	// with its 1 s cap).
	if end := find(recs, hooks.EvSessionEnd); len(end) != 1 || end[0].Get("reason").String() != "other" {
		t.Errorf("session_end: %v", end)
	}
}

func firstLine(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return line
}

// tmuxSession runs a command line in a detached tmux session on a private
// socket, with exactly env's environment.
type tmuxSession struct {
	t    *testing.T
	sock string
}

func startTmux(t *testing.T, env *harness.Env, dir string, argv ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux not installed")
		}
		t.Skip("tmux not installed")
	}
	s := &tmuxSession{t: t, sock: filepath.Join(env.Home, "tmux.sock")}
	line := "exec env -i"
	for _, kv := range env.Environ() {
		line += " " + shquote.Quote(kv)
	}
	for _, a := range argv {
		line += " " + shquote.Quote(a)
	}
	cmd := exec.Command("tmux", "-S", s.sock, "-f", "/dev/null", "new-session", "-d", "-x", "160", "-y", "40", "-s", "e2e", "-c", dir, line)
	cmd.Env = env.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxSession) screen() string {
	out, _ := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", "e2e").Output()
	return string(out)
}

func (s *tmuxSession) send(keys ...string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", s.sock, "send-keys", "-t", "e2e"}, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// waitScreen waits up to 30 s for the screen to contain want.
func (s *tmuxSession) waitScreen(want string) bool {
	s.t.Helper()
	if s.waitFor(want, 30*time.Second) {
		return true
	}
	s.t.Errorf("screen never showed %q:\n%s", want, s.screen())
	return false
}

func (s *tmuxSession) waitFor(want string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if strings.Contains(s.screen(), want) {
			return true
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// TestHooksClaudeInteractive: in an interactive Claude Code session the
// hooks fire too, and 'tether statusline' shows and records the context.
func TestHooksClaudeInteractive(t *testing.T) {
	clis := harness.CLIs(t)
	env, api, bin := hooksEnv(t)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	env.Setenv("NO_COLOR", "1")
	runTether(t, env, bin, "hooks", "install", "--statusline")
	dir := env.ProjectDir("interactive")
	env.SeedClaudeJSON(dir)
	usage := fakeapi.Usage{InputTokens: 1000, CacheCreationInputTokens: 99000, CacheReadInputTokens: 300000, OutputTokens: 20}
	api.Enqueue(fakeapi.Text("Hello there.").WithUsage(usage))

	s := startTmux(t, env, dir, clis.Claude)
	// The statusLine (tether's) shows once the prompt is up.
	if !s.waitScreen("ctx –") {
		return
	}
	s.send("say hello")
	s.waitScreen("say hello")
	s.send("Enter")
	// A loaded machine can swallow the first Enter while the UI settles.
	if !s.waitFor("Hello there.", 15*time.Second) {
		s.send("Enter")
		if !s.waitScreen("Hello there.") {
			return
		}
	}
	// 400k of the 1M window claude-opus-5-5 reports: 40%.
	s.waitScreen("40% (400k/1M)")
	s.send("/exit", "Enter")

	files, _ := filepath.Glob(filepath.Join(env.Home, ".local", "state", "tether", "sessions", "*.json"))
	if len(files) != 1 {
		t.Fatalf("session state files: %v", files)
	}
	sid := strings.TrimSuffix(filepath.Base(files[0]), ".json")
	recs := records(t, env, sid, hooks.EvSessionEnd)
	if len(find(recs, hooks.EvSpawn)) != 1 {
		t.Errorf("no session_spawn: %v", recs)
	}
	if turns := find(recs, hooks.EvTurnEnd); len(turns) != 1 || turns[0].Get("tokens").Int() != int64(usage.ContextTokens()) || turns[0].Get("window").Int() != 1_000_000 {
		t.Errorf("turn_end: %v", turns)
	}
	if end := find(recs, hooks.EvSessionEnd); len(end) != 1 || end[0].Get("reason").String() != "prompt_input_exit" || end[0].Get("duration_ms").Int() <= 0 {
		t.Errorf("session_end: %v", end)
	}

	st, err := state.LoadSession(filepath.Join(env.Home, ".local", "state", "tether"), sid)
	if err != nil || st.ReportedWindow != 1_000_000 || st.Tokens != int64(usage.ContextTokens()) || st.Percent != 40 {
		t.Errorf("state: %+v %v", st, err)
	}
}

// TestDoctorFixRetrustsCodexHooks: hooks installed with --trust, then the
// binary moves. doctor fails, --fix re-points hooks.json and trusts the new
// hooks again, doctor is ok, and the real Codex runs them without
// --dangerously-bypass-hook-trust.
func TestDoctorFixRetrustsCodexHooks(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	built := harness.Tether(t)
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	oldDir, newDir := filepath.Join(env.Home, "old"), filepath.Join(env.Home, "new")
	os.MkdirAll(oldDir, 0o755)
	os.MkdirAll(newDir, 0o755)
	oldBin, newBin := filepath.Join(oldDir, "tether"), filepath.Join(newDir, "tether")
	if err := os.WriteFile(oldBin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env.Setenv("PATH", oldDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	runTether(t, env, oldBin, "hooks", "install", "--harness", "codex", "--trust")

	if err := os.Rename(oldBin, newBin); err != nil {
		t.Fatal(err)
	}
	env.Setenv("PATH", newDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	doctor := func(args ...string) harness.Result {
		return env.Run(context.Background(), "tether", newBin, env.Home, append([]string{"doctor"}, args...)...)
	}
	if res := doctor(); res.ExitCode != 1 || !strings.Contains(res.Stdout, "fail  codex hook") {
		t.Fatalf("doctor after the move: exit %d\n%s", res.ExitCode, res.Stdout)
	}
	doctor("--fix")
	res := doctor()
	if !strings.Contains(res.Stdout, "ok    codex hook") || !strings.Contains(res.Stdout, "running "+newBin+", trusted") {
		t.Fatalf("doctor after --fix:\n%s", res.Stdout)
	}

	api.Enqueue(fakeapi.Text("Done."))
	dir := env.ProjectDir("codex-retrust")
	if res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "hello"); res.ExitCode != 0 {
		t.Fatalf("codex exited %d: %s", res.ExitCode, res.Stderr)
	}
	rollouts := env.CodexRollouts()
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	sid := gjson.Get(firstLine(t, rollouts[0]), "payload.id").String()
	recs := records(t, env, sid, hooks.EvSessionEnd)
	if s := find(recs, hooks.EvSpawn); len(s) != 1 {
		t.Errorf("the re-trusted hooks did not run: %v", recs)
	}
}

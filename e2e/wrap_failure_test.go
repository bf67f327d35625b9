//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/state"
)

// fallbackEvents counts the wrapper's fallback records in the log.
func fallbackEvents(t *testing.T, env *harness.Env) (failures, fallbacks int) {
	for _, rec := range events(t, env) {
		switch rec.Event {
		case "resume_failure":
			failures++
		case "fresh_fallback":
			fallbacks++
		}
	}
	return failures, fallbacks
}

func stateDir(env *harness.Env) string { return filepath.Join(envVar(env, "XDG_STATE_HOME"), "tether") }

// requirePassedThrough: the run ended with the agent's own status and
// output, and tether neither started a fresh session, nor logged a
// fallback, nor marked the session stale.
func requirePassedThrough(t *testing.T, env *harness.Env, r harness.Result, sid string, status int, agentSaid string, sessions int) {
	t.Helper()
	if r.ExitCode != status {
		t.Errorf("%s: exit %d, want the agent's %d", r.Name, r.ExitCode, status)
	}
	if !strings.Contains(r.Stderr, agentSaid) || strings.Contains(r.Stderr, "tether:") {
		t.Errorf("%s: stderr should be the agent's own (%q) and nothing from tether:\n%s", r.Name, agentSaid, r.Stderr)
	}
	if n := len(env.ClaudeTranscripts()) + len(env.CodexRollouts()); n != sessions {
		t.Errorf("%s: %d sessions on disk, want %d (no fresh one)", r.Name, n, sessions)
	}
	if f, fb := fallbackEvents(t, env); f != 0 || fb != 0 {
		t.Errorf("%s: logged %d resume_failure and %d fresh_fallback", r.Name, f, fb)
	}
	if _, err := os.Stat(state.StalePath(stateDir(env), sid)); err == nil {
		t.Errorf("%s: the session was marked stale", r.Name)
	}
}

// TestWrapOrdinaryFailuresPassThrough: with the real Claude Code, a
// mistyped flag and a resume without a terminal (2.1.332 wants a prompt,
// 2.0.77 has no messages to print) are the agent's to report: the
// wrapper passes them through untouched.
func TestWrapOrdinaryFailuresPassThrough(t *testing.T) {
	clis := harness.CLIs(t)
	for _, v := range []struct{ name, bin, noTTY string }{
		{"2.1.332", clis.Claude, "Provide a prompt to continue the conversation."},
		{"2.0.77", clis.ClaudeOld, "Error: No messages returned"},
	} {
		t.Run(v.name, func(t *testing.T) {
			ctx := context.Background()
			env, _, tether := wrapEnv(t, v.bin)
			proj := env.ProjectDir("project")
			r := env.Run(ctx, "new session", tether, proj, "run", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose")
			if r.ExitCode != 0 {
				t.Fatalf("new session: exit %d", r.ExitCode)
			}
			sid := sessionOf(t, r)
			r = env.Run(ctx, "mistyped flag", tether, proj, "run", "claude", "--resume", sid, "--modle", "x")
			requirePassedThrough(t, env, r, sid, 1, "unknown option '--modle'", 1)
			// Claude 2.0.77 writes a new session file of its own here: count
			// what the agent does without tether first.
			env.Run(ctx, "claude without a terminal", v.bin, proj, "--resume", sid)
			own := len(env.ClaudeTranscripts())
			r = env.Run(ctx, "resume without a terminal", tether, proj, "run", "claude", "--resume", sid)
			requirePassedThrough(t, env, r, sid, 1, v.noTTY, 2*own-1)
		})
	}
}

// TestWrapCodexOrdinaryFailuresPassThrough: the same for Codex's usage
// error (exit 2) and its TUI without a terminal.
func TestWrapCodexOrdinaryFailuresPassThrough(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	env, tether, dir, thread := codexSession(t, clis.Codex)
	r := env.Run(ctx, "mistyped flag", tether, dir, "run", "codex", "exec", "--skip-git-repo-check", "resume", thread, "hi", "--modle", "x")
	requirePassedThrough(t, env, r, thread, 2, "unexpected argument '--modle' found", 1)
	r = env.Run(ctx, "tui without a terminal", tether, dir, "run", "codex", "resume", thread)
	requirePassedThrough(t, env, r, thread, 1, "stdin is not a terminal", 1)
}

// codexSession starts one Codex thread through tether.
func codexSession(t *testing.T, codex string) (*harness.Env, string, string, string) {
	t.Helper()
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_CODEX_BIN", codex)
	tether := harness.Tether(t)
	dir := env.ProjectDir("project")
	r := env.Run(context.Background(), "codex exec", tether, dir, "run", "codex", "exec", "--skip-git-repo-check", "hello")
	if r.ExitCode != 0 || len(env.CodexRollouts()) != 1 {
		t.Fatalf("codex exec: exit %d, rollouts %v", r.ExitCode, env.CodexRollouts())
	}
	thread := strings.TrimSuffix(filepath.Base(env.CodexRollouts()[0]), ".jsonl")
	return env, tether, dir, thread[len(thread)-36:]
}

// TestWrapSignalEndsTheRun: a SIGTERM or SIGHUP sent to the wrapper (a
// closed terminal, tmux kill-session) reaches the agent, and the run ends
// with the agent's status, never as a failed resume: the interactive
// Claude Code 2.1.332 in a terminal, Claude -p and Codex exec.
func TestWrapSignalEndsTheRun(t *testing.T) {
	clis := harness.CLIs(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run("claude interactive "+sig.String(), func(t *testing.T) {
			harness.RequireTmux(t)
			env, _, tether := wrapEnv(t, clis.Claude)
			proj := env.ProjectDir("project")
			env.SeedClaudeJSON(proj)
			r := env.Run(context.Background(), "new session", tether, proj, "run", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose")
			sid := sessionOf(t, r)
			tm := env.StartTmux(proj, tether, "run", "claude", "--resume", sid)
			tm.WaitFor("❯", 60*time.Second)
			syscall.Kill(tm.PanePID(), sig)
			status := tm.WaitExit(30 * time.Second)
			screen := tm.Capture()
			tm.Kill()
			want := endStatus(t, env)
			if status == harness.StatusUnknown {
				status = want // tmux did not say; the log did
			}
			if want == 0 {
				t.Errorf("the agent's status on %v is 0", sig)
			}
			requirePassedThrough(t, env, harness.Result{Name: "interactive " + sig.String(), ExitCode: status, Stderr: screen}, sid, want, "", 1)
		})
	}
	t.Run("claude -p", func(t *testing.T) {
		env, api, tether := wrapEnv(t, clis.Claude)
		proj := env.ProjectDir("project")
		r := env.Run(context.Background(), "new session", tether, proj, "run", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose")
		sid := sessionOf(t, r)
		api.SetStreamDelay(5 * time.Second)
		r = runAndTerminate(t, env, tether, proj, "run", "claude", "-p", "--resume", sid, "slow")
		requirePassedThrough(t, env, r, sid, endStatus(t, env), "", 1)
	})
	t.Run("codex exec", func(t *testing.T) {
		env, tether, dir, thread := codexSession(t, clis.Codex)
		env.API.SetStreamDelay(5 * time.Second)
		r := runAndTerminate(t, env, tether, dir, "run", "codex", "exec", "--skip-git-repo-check", "resume", thread, "slow")
		requirePassedThrough(t, env, r, thread, endStatus(t, env), "", 1)
	})
}

// endStatus is the agent's exit status as the wrapper logged it last.
func endStatus(t *testing.T, env *harness.Env) int {
	t.Helper()
	status := -2
	for _, rec := range events(t, env) {
		if rec.Event == "end" {
			var v struct {
				ExitCode int `json:"exit_code"`
			}
			json.Unmarshal(rec.Raw, &v)
			status = v.ExitCode
		}
	}
	return status
}

// runAndTerminate runs tether with args and sends it SIGTERM once the
// agent has sent its model request.
func runAndTerminate(t *testing.T, env *harness.Env, tether, dir string, args ...string) harness.Result {
	t.Helper()
	before := len(env.API.ModelRequests())
	cmd := exec.Command(tether, args...)
	cmd.Dir, cmd.Env = dir, env.Environ()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	for deadline := time.Now().Add(60 * time.Second); len(env.API.ModelRequests()) == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no model request\n%s", stderr.String())
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("tether did not end after SIGTERM\n%s", stderr.String())
	}
	r := harness.Result{Name: "SIGTERM " + strings.Join(args[:2], " "), Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: cmd.ProcessState.ExitCode()}
	t.Logf("%s: exit %d\n[stderr]\n%s", r.Name, r.ExitCode, r.Stderr)
	return r
}

// TestWrapLoadFailureStartsFresh: a transcript tether can find but the
// agent cannot load (Claude Code: one with summaries only, "No
// conversation found with session ID"; Codex: a rollout without session
// metadata, "failed to read thread") is recognised by the agent's own
// message, passed through, and followed by one fresh start.
func TestWrapLoadFailureStartsFresh(t *testing.T) {
	clis := harness.CLIs(t)
	t.Run("claude", func(t *testing.T) {
		env, _, tether := wrapEnv(t, clis.Claude)
		proj := env.ProjectDir("project")
		r := env.Run(context.Background(), "new session", tether, proj, "run", "claude", "-p", "hello", "--output-format", "stream-json", "--verbose")
		sid := sessionOf(t, r)
		tp := findTranscript(t, env, sid)
		os.WriteFile(tp, []byte(`{"type":"summary","summary":"x","leafUuid":"y"}`+"\n"), 0o600)
		r = env.Run(context.Background(), "unloadable", tether, proj, "run", "claude", "-p", "--resume", sid, "hi")
		requireFreshAfterLoadFailure(t, env, r, sid, "No conversation found with session ID: "+sid)
	})
	t.Run("codex", func(t *testing.T) {
		env, tether, dir, thread := codexSession(t, clis.Codex)
		rollout := env.CodexRollouts()[0]
		os.WriteFile(rollout, []byte(`{"timestamp":"2026-12-01T00:00:00Z","type":"turn_context","payload":{"cwd":"`+dir+`"}}`+"\n"), 0o600)
		r := env.Run(context.Background(), "unloadable", tether, dir, "run", "codex", "exec", "--skip-git-repo-check", "resume", thread, "hi")
		requireFreshAfterLoadFailure(t, env, r, thread, "thread/resume failed: failed to read thread")
	})
}

func requireFreshAfterLoadFailure(t *testing.T, env *harness.Env, r harness.Result, sid, agentSaid string) {
	t.Helper()
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, agentSaid) ||
		strings.Count(r.Stderr, "could not be resumed (the agent could not load the session) — starting fresh.") != 1 {
		t.Fatalf("exit %d, stderr:\n%s", r.ExitCode, r.Stderr)
	}
	if n := len(env.ClaudeTranscripts()) + len(env.CodexRollouts()); n != 2 {
		t.Errorf("%d sessions on disk, want the old one and one fresh", n)
	}
	if f, fb := fallbackEvents(t, env); f != 1 || fb != 1 {
		t.Errorf("logged %d resume_failure and %d fresh_fallback, want 1 each", f, fb)
	}
	if _, err := os.Stat(state.StalePath(stateDir(env), sid)); err != nil {
		t.Errorf("no stale mark: %v", err)
	}
}

// TestWrapFallbackNoticeInClaudeScreen: with tether's hooks installed, the
// real Claude Code 2.1.332 gets the "starting fresh" notice from the
// SessionStart hook of the fresh session as its systemMessage (shown in
// its screen; stream-json reports the hook's output, the transcript
// records the message), and no notice is left pending afterwards.
func TestWrapFallbackNoticeInClaudeScreen(t *testing.T) {
	clis := harness.CLIs(t)
	env, _, bin := hooksEnv(t)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	runTether(t, env, bin, "hooks", "install")
	proj := env.ProjectDir("project")
	missing := "5f0b8a52-6a2c-4e0e-9d1f-3a7b9c2d1e00"
	r := env.Run(context.Background(), "resume missing", bin, proj, "run", "claude", "-p", "--resume", missing, "hi",
		"--output-format", "stream-json", "--verbose")
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, "could not be resumed (session not found) — starting fresh.") {
		t.Fatalf("exit %d, stderr:\n%s", r.ExitCode, r.Stderr)
	}
	var shown bool
	for _, ev := range r.ClaudeEvents() {
		if ev["type"] == "system" && ev["subtype"] == "hook_response" && ev["hook_event"] == "SessionStart" {
			out, _ := ev["stdout"].(string)
			shown = shown || strings.Contains(out, `"systemMessage":"tether: session 5f0b8a52 could not be resumed (session not found)`)
		}
	}
	if !shown {
		t.Errorf("no SessionStart hook output carries the notice:\n%s", r.Stdout)
	}
	fresh := sessionOf(t, r)
	data, _ := os.ReadFile(findTranscript(t, env, fresh))
	if !bytes.Contains(data, []byte(`"type":"hook_system_message","content":"tether: session 5f0b8a52 could not be resumed`)) {
		t.Errorf("the fresh transcript does not record the notice as shown")
	}
	root, _ := filepath.EvalSymlinks(proj)
	if _, err := os.Stat(state.NoticePath(stateDir(env), root)); err == nil {
		t.Error("a notice is still pending")
	}
}

// TestWrapFallbackNoticeInClaudeTUI: in a terminal, where Claude Code's
// screen draws over what was printed before it, the notice is shown inside
// that screen (as the SessionStart hook's message) and printed again once
// the agent exits.
func TestWrapFallbackNoticeInClaudeTUI(t *testing.T) {
	clis := harness.CLIs(t)
	harness.RequireTmux(t)
	env, _, bin := hooksEnv(t)
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	runTether(t, env, bin, "hooks", "install")
	proj := env.ProjectDir("project")
	env.SeedClaudeJSON(proj)
	const notice = "tether: session 5f0b8a52 could not be resumed (session not found) — starting fresh."
	tm := env.StartTmux(proj, bin, "run", "claude", "--resume", "5f0b8a52-6a2c-4e0e-9d1f-3a7b9c2d1e00")
	tm.WaitFor("SessionStart:startup says: "+notice, 60*time.Second)
	tm.WaitFor("❯", 30*time.Second)
	tm.SendText("/exit")
	tm.SendKeys("Enter")
	tm.WaitExit(30 * time.Second)
	if screen := tm.Capture(); !strings.Contains(screen, notice) {
		t.Errorf("the notice is not printed again after the exit:\n%s", screen)
	}
}

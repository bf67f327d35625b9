//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// wrapEnv is an Env whose tether wrapper finds the real claude through
// TETHER_CLAUDE_BIN.
func wrapEnv(t *testing.T, claude string) (*harness.Env, *fakeapi.Server, string) {
	t.Helper()
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_CLAUDE_BIN", claude)
	return env, api, harness.Tether(t)
}

func sessionOf(t *testing.T, r harness.Result) string {
	t.Helper()
	final, ok := r.ClaudeResult()
	if !ok {
		t.Fatalf("%s: no result event in stdout", r.Name)
	}
	sid, _ := final["session_id"].(string)
	if sid == "" {
		t.Fatalf("%s: no session_id in %v", r.Name, final)
	}
	return sid
}

func events(t *testing.T, env *harness.Env) []eventlog.Record {
	t.Helper()
	var out []eventlog.Record
	path := filepath.Join(env.Home, ".local", "state", "tether", "events.jsonl")
	if v := envVar(env, "XDG_STATE_HOME"); v != "" {
		path = filepath.Join(v, "tether", "events.jsonl")
	}
	if _, err := eventlog.ReadAll(path, func(r eventlog.Record) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	return out
}

func envVar(env *harness.Env, key string) string {
	for _, kv := range env.Environ() {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

func eventNames(recs []eventlog.Record) string {
	var names []string
	for _, r := range recs {
		names = append(names, r.Event)
	}
	return strings.Join(names, ",")
}

func TestWrapClaude(t *testing.T) {
	clis := harness.CLIs(t)
	for _, v := range []struct{ name, bin string }{{"2.1.332", clis.Claude}, {"2.0.77", clis.ClaudeOld}} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			env, api, tether := wrapEnv(t, v.bin)
			base, _ := filepath.EvalSymlinks(env.Home)
			real := filepath.Join(base, "src", "project")
			os.MkdirAll(real, 0o755)
			link := filepath.Join(base, "link")
			os.Symlink(real, link)
			sj := []string{"--output-format", "stream-json", "--verbose"}

			// A session started through the symlink lands under the
			// canonical directory's project name: the wrapper starts the
			// child there.
			r := env.Run(ctx, "tether run claude", tether, link, append([]string{"run", "claude", "-p", "hello"}, sj...)...)
			if r.ExitCode != 0 {
				t.Fatalf("wrapped new session: exit %d", r.ExitCode)
			}
			sid := sessionOf(t, r)
			name, _ := claude.ProjectDirName(real)
			transcript := filepath.Join(env.ClaudeConfigDir, "projects", name, sid+".jsonl")
			if _, err := os.Stat(transcript); err != nil {
				t.Fatalf("transcript not under the canonical project dir: %v (have %v)", err, env.ClaudeTranscripts())
			}

			// A normal resume is untouched: same id, same exit status, no
			// notice, from the other spelling of the directory.
			before, _ := os.Stat(transcript)
			r = env.Run(ctx, "tether run claude resume", tether, real+"/", append([]string{"run", "claude", "-p", "--resume", sid, "again"}, sj...)...)
			if r.ExitCode != 0 || strings.Contains(r.Stderr, "tether:") || sessionOf(t, r) != sid {
				t.Fatalf("plain resume: exit %d, stderr %q", r.ExitCode, r.Stderr)
			}
			if after, _ := os.Stat(transcript); after.Size() <= before.Size() {
				t.Errorf("resume appended nothing to %s", transcript)
			}

			// Prompt too long on resume: the history is too large for every
			// request that carries it (the turn and Claude's own attempt to
			// compact it), so the only way on is one fresh retry, with the
			// notice. A request holding one user message is the fresh start.
			api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
				if len(req.UserTexts()) > 1 {
					return fakeapi.PromptTooLong(250000, 200000), true
				}
				return fakeapi.Reply{}, false
			})
			r = env.Run(ctx, "tether run claude too long", tether, real, append([]string{"run", "--handoff", "claude", "-p", "--resume", sid, "more"}, sj...)...)
			if r.ExitCode != 0 {
				t.Fatalf("prompt too long → fresh: exit %d", r.ExitCode)
			}
			// The API said too long, so tether first trims to its count
			// (2.0.77 records none: the prompt is taken as at the window)
			// and resumes once more when the trim drops anything.
			retried := strings.Contains(r.Stderr, "resuming once more")
			want := "tether: session " + sid[:8] + " could not be resumed (prompt too long) — starting fresh."
			if retried {
				want = "tether: session " + sid[:8] + " could not be resumed (prompt too long, even after trimming) — starting fresh."
			}
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("stderr lacks the notice %q:\n%s", want, r.Stderr)
			}
			if strings.Count(r.Stderr, "could not be resumed") != 1 {
				t.Errorf("more than one retry:\n%s", r.Stderr)
			}
			fresh := sessionOf(t, r)
			if fresh == sid {
				t.Errorf("fallback reused the old session %s", sid)
			}
			api.SetResponder(nil)
			// --handoff: the fresh session was told what the old one was.
			// (After a trim the handoff summarises what the trim kept.)
			if last, ok := api.LastModelRequest(); !ok || !strings.Contains(last.System, "could not be resumed (prompt too long") ||
				!retried && !strings.Contains(last.System, "First request: hello") {
				t.Errorf("the fresh session's system prompt lacks the handoff:\n%.2000s", last.System)
			}

			// A deleted transcript never reaches the CLI's resume.
			os.Remove(transcript)
			r = env.Run(ctx, "tether run claude deleted", tether, real, append([]string{"run", "claude", "-p", "--resume", sid, "again"}, sj...)...)
			if r.ExitCode != 0 || !strings.Contains(r.Stderr, "(session not found)") {
				t.Fatalf("deleted transcript: exit %d, stderr %q", r.ExitCode, r.Stderr)
			}

			recs := events(t, env)
			var failures, fallbacks int
			for _, rec := range recs {
				switch rec.Event {
				case "resume_failure":
					failures++
				case "fresh_fallback":
					fallbacks++
					if rec.SessionID != sid || !strings.Contains(string(rec.Raw), `"new_session_id":"`) {
						t.Errorf("fresh_fallback record lacks the ids: %s", rec.Raw)
					}
					if strings.Contains(string(rec.Raw), `"new_session_id":""`) {
						t.Errorf("fresh_fallback without the new session id: %s", rec.Raw)
					}
				}
				if rec.Root != real {
					t.Errorf("%s logged with identity root %q, want %q", rec.Event, rec.Root, real)
				}
			}
			wantFailures := 2
			if retried {
				wantFailures++ // the refusal before the trim
			}
			if failures != wantFailures || fallbacks != 2 {
				t.Errorf("log: %d resume_failure, %d fresh_fallback, want 2 each: %s", failures, fallbacks, eventNames(recs))
			}
		})
	}
}

// TestWrapTrimsOversizedSession: a session whose last turn used 95% of the
// window is trimmed to fit before the resume, and the resumed request
// carries the trimmed history.
func TestWrapTrimsOversizedSession(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	env, api, tether := wrapEnv(t, clis.Claude)
	base, _ := filepath.EvalSymlinks(env.Home)
	proj := filepath.Join(base, "src", "project")
	os.MkdirAll(proj, 0o755)
	// A small window for the fake model, so a few hundred KB overflow it.
	cfg := filepath.Join(envVar(env, "XDG_CONFIG_HOME"), "tether", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("[hooks.windows]\n\"claude-opus-5-5\" = 100000\n"), 0o600)
	var files []string
	// Three reads of ~190 KB each: about 140k tokens by tether's estimate,
	// well over the 60% it trims to.
	for i := 0; i < 3; i++ {
		p := filepath.Join(proj, fmt.Sprintf("big%d.txt", i))
		os.WriteFile(p, []byte(strings.Repeat(strings.Repeat("y", 125)+"\n", 1500)), 0o644)
		files = append(files, p)
	}
	api.Enqueue(fakeapi.Read(files[0]).Then(fakeapi.Read(files[1]).Then(fakeapi.Read(files[2]).Then(
		fakeapi.Text("read them").WithUsage(fakeapi.Usage{InputTokens: 95000, OutputTokens: 10})))))
	sj := []string{"--output-format", "stream-json", "--verbose", "--allowedTools", "Read"}
	r := env.Run(ctx, "claude reads big files", tether, proj, append([]string{"run", "claude", "-p", "read the files"}, sj...)...)
	if r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	sid := sessionOf(t, r)

	r = env.Run(ctx, "tether run claude resume oversized", tether, proj, append([]string{"run", "claude", "-p", "--resume", sid, "go on"}, sj...)...)
	if r.ExitCode != 0 {
		t.Fatalf("resume: exit %d", r.ExitCode)
	}
	if !strings.Contains(r.Stderr, "was at 95% of its context — trimmed to about") {
		t.Errorf("stderr lacks the trim line:\n%s", r.Stderr)
	}
	if sessionOf(t, r) != sid {
		t.Errorf("the trimmed session was not the one resumed")
	}
	last, ok := api.LastModelRequest()
	if !ok {
		t.Fatal("no model request recorded")
	}
	// fit shrinks oldest first until the estimate fits: the first results
	// become markers, the newest may stay whole.
	full := 3 * 1500 * 126
	if !strings.Contains(string(last.Body), "[trimmed by tether:") || len(last.Body) >= full {
		t.Errorf("the resumed request was not trimmed: %d bytes (the three files alone are %d), marker %v",
			len(last.Body), full, strings.Contains(string(last.Body), "[trimmed by tether:"))
	}
}

// TestWrapCodex: a Codex resume that cannot work (unknown thread, context
// window exceeded) ends in one fresh thread with the notice naming
// AGENTS.md; a normal resume goes through untouched.
func TestWrapCodex(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	env.Setenv("TETHER_CODEX_BIN", clis.Codex)
	tether := harness.Tether(t)
	dir := env.ProjectDir("project")
	execArgs := []string{"run", "codex", "exec", "--skip-git-repo-check"}

	r := env.Run(ctx, "tether run codex exec", tether, dir, append(execArgs, "hello")...)
	if r.ExitCode != 0 || len(env.CodexRollouts()) != 1 {
		t.Fatalf("codex exec: exit %d, rollouts %v", r.ExitCode, env.CodexRollouts())
	}
	rollout := env.CodexRollouts()[0]
	thread := strings.TrimSuffix(filepath.Base(rollout), ".jsonl")
	thread = thread[len(thread)-36:]

	api.Enqueue(fakeapi.Text("again"))
	r = env.Run(ctx, "tether run codex exec resume", tether, dir, append(execArgs, "resume", thread, "more")...)
	if r.ExitCode != 0 || strings.Contains(r.Stderr, "tether:") || len(env.CodexRollouts()) != 1 {
		t.Fatalf("plain resume: exit %d, rollouts %v, stderr %q", r.ExitCode, env.CodexRollouts(), r.Stderr)
	}

	// The notice names AGENTS.md only because it exists.
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("# project notes\n"), 0o644)
	api.Enqueue(fakeapi.ContextLengthExceeded(), fakeapi.Text("fresh"))
	r = env.Run(ctx, "tether run codex resume overflow", tether, dir, append(execArgs, "resume", thread, "overflow")...)
	want := "tether: session " + thread[:8] + " could not be resumed (context window exceeded) — starting fresh. Project context is preserved in AGENTS.md."
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, want) || strings.Count(r.Stderr, "could not be resumed") != 1 {
		t.Fatalf("overflow: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if n := len(env.CodexRollouts()); n != 2 {
		t.Errorf("want one fresh rollout beside the old one, have %d", n)
	}

	missing := "019a0000-0000-7000-8000-000000000000"
	r = env.Run(ctx, "tether run codex resume missing", tether, dir, append(execArgs, "resume", missing, "hi")...)
	if r.ExitCode != 0 || !strings.Contains(r.Stderr, "could not be resumed (session not found)") {
		t.Fatalf("missing: exit %d, stderr %q", r.ExitCode, r.Stderr)
	}
	var fallbacks int
	for _, rec := range events(t, env) {
		if rec.Event == "fresh_fallback" {
			fallbacks++
			if rec.Harness != "codex" || strings.Contains(string(rec.Raw), `"new_session_id":""`) {
				t.Errorf("fresh_fallback: %s", rec.Raw)
			}
		}
	}
	if fallbacks != 2 {
		t.Errorf("%d fresh_fallback records, want 2", fallbacks)
	}
}

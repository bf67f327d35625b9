package wrap

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/state"
)

// failing is a run of the agent that prints msg on stderr and exits with
// code, appending nothing.
func failing(msg string, code int) func(Child) int {
	return func(c Child) int {
		if c.Stderr != nil {
			fmt.Fprint(c.Stderr, msg)
		}
		return code
	}
}

// TestOrdinaryFailuresPassThrough: a resume that fails for any reason but
// the session (the agents' real messages for a mistyped flag, a resume
// without a terminal or a prompt, a server error) ends with the agent's
// own output and status: no fresh start, no resume_failure or
// fresh_fallback, no stale mark.
func TestOrdinaryFailuresPassThrough(t *testing.T) {
	cases := []struct {
		name string
		h    harness
		args []string
		run  func(Child) int
		want int
	}{
		{"claude mistyped flag", Claude, []string{"--resume", sid, "--modle", "x"},
			failing("error: unknown option '--modle'\n(Did you mean --model?)\n", 1), 1},
		{"claude 2.1 without a terminal", Claude, []string{"--resume", sid},
			failing("Error: No deferred tool marker found in the resumed session. Either the session was not deferred, the marker is stale (tool already ran), or it exceeds the tail-scan window. Provide a prompt to continue the conversation.\n", 1), 1},
		{"claude 2.0 without a terminal", Claude, []string{"--resume", sid}, failing("Error: No messages returned\n", 1), 1},
		{"claude another session's message", Claude, []string{"-p", "--resume", sid, "hi"},
			failing("No conversation found with session ID: 11111111-2222-4333-8444-555555555555\n", 1), 1},
		{"codex mistyped flag", Codex, []string{"exec", "resume", sid, "hi", "--modle", "x"},
			failing("error: unexpected argument '--modle' found\n", 2), 2},
		{"codex without a terminal", Codex, []string{"resume", sid}, failing("Error: stdin is not a terminal\n", 1), 1},
		{"codex server error", Codex, []string{"exec", "resume", sid, "hi"},
			failing("ERROR: We’re currently experiencing high demand, which may cause temporary errors.\n", 1), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			stateDir := filepath.Join(f.home, "state")
			codexDir := filepath.Join(f.home, ".codex")
			if c.h == Codex {
				writeRollout(t, codexDir, f.root.Path)
			} else {
				f.writeTranscript(f.root.Path, userRecord(f.root.Path))
			}
			f.script = []func(Child) int{c.run, func(Child) int { return 0 }}
			code, err := f.runOpts(func(o *Options) {
				o.Exec = f.scripted
				if c.h == Codex {
					o.Agent = codex.New(codexDir)
				}
				o.StateDir, o.Threshold = stateDir, 0
			}, c.args...)
			if err != nil || code != c.want || len(f.calls) != 1 {
				t.Fatalf("code %d (want the agent's %d) err %v, %d runs", code, c.want, err, len(f.calls))
			}
			if strings.Contains(f.stderr.String(), "tether:") {
				t.Errorf("tether spoke: %q", f.stderr.String())
			}
			if ev := f.events(); slices.Contains(ev, "resume_failure") || slices.Contains(ev, "fresh_fallback") {
				t.Errorf("events %v", ev)
			}
			if _, err := os.Stat(state.StalePath(stateDir, sid)); err == nil {
				t.Error("a stale mark was written")
			}
		})
	}
}

// writeRollout writes a Codex rollout for the thread sid.
func writeRollout(t *testing.T, codexDir, cwd string) string {
	t.Helper()
	p := filepath.Join(codexDir, "sessions", "2026", "11", "30", "rollout-2026-11-30T10-00-00-"+sid+".jsonl")
	os.MkdirAll(filepath.Dir(p), 0o700)
	meta := `{"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{"id":"` + sid + `","cwd":"` + cwd + `"}}` + "\n"
	if err := os.WriteFile(p, []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadFailuresStartFresh: the agents' own messages for a session they
// could not load are the resume's fault: one fresh start, marked stale.
func TestLoadFailuresStartFresh(t *testing.T) {
	cases := []struct {
		name string
		h    harness
		args []string
		msg  string
	}{
		{"claude", Claude, []string{"-p", "--resume", sid, "hi"}, "No conversation found with session ID: " + sid + "\n"},
		{"codex no rollout", Codex, []string{"exec", "resume", sid, "hi"},
			"Error: thread/resume: thread/resume failed: no rollout found for thread id " + sid + " (code -32600)\n"},
		{"codex unreadable", Codex, []string{"exec", "resume", sid, "hi"},
			"Error: thread/resume: thread/resume failed: failed to read thread: thread-store internal error: failed to read session metadata /x.jsonl: rollout at /x.jsonl is empty (code -32603)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			stateDir := filepath.Join(f.home, "state")
			codexDir := filepath.Join(f.home, ".codex")
			if c.h == Codex {
				writeRollout(t, codexDir, f.root.Path)
			} else {
				f.writeTranscript(f.root.Path, userRecord(f.root.Path))
			}
			f.script = []func(Child) int{failing(c.msg, 1), func(Child) int { return 0 }}
			code, err := f.runOpts(func(o *Options) {
				o.Exec = f.scripted
				if c.h == Codex {
					o.Agent = codex.New(codexDir)
				}
				o.StateDir, o.Threshold = stateDir, 0
			}, c.args...)
			if err != nil || code != 0 || len(f.calls) != 2 {
				t.Fatalf("code %d err %v, %d runs", code, err, len(f.calls))
			}
			if !strings.Contains(f.stderr.String(), c.msg) || !strings.Contains(f.stderr.String(), "could not be resumed (the agent could not load the session)") {
				t.Errorf("stderr %q", f.stderr.String())
			}
			if !hasStale(stateDir) {
				t.Error("no stale mark")
			}
		})
	}
}

func hasStale(stateDir string) bool {
	_, err := os.Stat(state.StalePath(stateDir, sid))
	return err == nil
}

// TestUserSignalEndsTheRun: a SIGTERM or SIGHUP the wrapper passed on (a
// closed terminal, tmux kill-session) ends the run with the child's
// status, whatever the child then did: Codex exits 1 on SIGTERM with
// nothing appended; a prompt-too-long record is not retried either.
func TestUserSignalEndsTheRun(t *testing.T) {
	for _, tooLong := range []bool{false, true} {
		t.Run(fmt.Sprint("tooLong=", tooLong), func(t *testing.T) {
			f := newFixture(t)
			stateDir := filepath.Join(f.home, "state")
			p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
			killed := func(c Child) int {
				c.OnSignal(syscall.SIGTERM)
				if tooLong {
					appendTooLong(p)(c)
				}
				return 1
			}
			f.script = []func(Child) int{killed, func(Child) int { return 0 }}
			code, err := f.runOpts(func(o *Options) { o.Exec, o.StateDir, o.Threshold = f.scripted, stateDir, 0 }, "-p", "--resume", sid, "hi")
			if err != nil || code != 1 || len(f.calls) != 1 || f.stderr.Len() != 0 {
				t.Fatalf("code %d err %v, %d runs, stderr %q", code, err, len(f.calls), f.stderr.String())
			}
			if ev := f.events(); !reflect.DeepEqual(ev, []string{"spawn", "end"}) {
				t.Errorf("events %v", ev)
			}
			if hasStale(stateDir) {
				t.Error("a stale mark was written")
			}
		})
	}
}

// TestToolPairingErrorStartsFresh: the API's 400 for unpaired tool
// blocks, as Claude Code records it, fails every resume of that history.
func TestToolPairingErrorStartsFresh(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	refused := func(Child) int {
		fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(`{"parentUuid":"u1","type":"user","uuid":"u2","message":{"role":"user","content":"go on"}}` + "\n")
		fh.WriteString(`{"parentUuid":"u2","isSidechain":false,"type":"assistant","uuid":"u3","isApiErrorMessage":true,"error":"invalid_request","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 400 due to tool use concurrency issues."}]}}` + "\n")
		fh.Close()
		return 1
	}
	f.script = []func(Child) int{refused, func(Child) int { return 0 }}
	if code := f.run("-p", "--resume", sid, "go on"); code != 0 || len(f.calls) != 2 {
		t.Fatalf("code %d, %d runs", code, len(f.calls))
	}
	if !strings.Contains(f.stderr.String(), "could not be resumed (the API refused its tool history)") {
		t.Errorf("stderr %q", f.stderr.String())
	}
}

// TestStderrTerminalIsLeftAlone: with stderr a terminal the child gets it
// untouched (no copy), so nothing is read and no message recognised.
func TestStderrTerminalIsLeftAlone(t *testing.T) {
	f := newFixture(t)
	f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	f.script = []func(Child) int{func(c Child) int {
		if c.Stderr != nil {
			t.Error("stderr replaced though it is a terminal")
		}
		return 1
	}}
	code, _ := f.runOpts(func(o *Options) { o.Exec, o.StderrTTY = f.scripted, true }, "--resume", sid)
	if code != 1 || len(f.calls) != 1 {
		t.Errorf("code %d, %d runs", code, len(f.calls))
	}
}

// TestFallbackNoticeReachesTheHook: while the fresh session runs, its
// SessionStart hook finds the notice the wrapper left (keyed by the root
// the child gets); after it, no notice is left, and an interactive run
// (whose screen drew over the first) prints it again.
func TestFallbackNoticeReachesTheHook(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		t.Run(fmt.Sprint("interactive=", interactive), func(t *testing.T) {
			f := newFixture(t)
			stateDir := filepath.Join(f.home, "state")
			f.writeTranscript(f.root.Path, userRecord(f.root.Path))
			var seen string
			fresh := func(c Child) int {
				seen = state.TakeNotice(stateDir, lastEnv(c.Env, "TETHER_IDENTITY_ROOT"), "new-session", "startup", time.Now())
				return 0
			}
			f.script = []func(Child) int{noConversation, fresh}
			args := []string{"-p", "--resume", sid, "hi"}
			if interactive {
				args = []string{"--resume", sid}
			}
			if _, err := f.runOpts(func(o *Options) {
				o.Exec, o.StateDir, o.Threshold, o.Interactive = f.scripted, stateDir, 0, interactive
			}, args...); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(seen, "tether: session d9f7843f could not be resumed (the agent could not load the session) — starting fresh.") {
				t.Errorf("the hook found %q", seen)
			}
			want := 1
			if interactive {
				want = 2
			}
			if n := strings.Count(f.stderr.String(), "could not be resumed"); n != want {
				t.Errorf("notice printed %d times, want %d: %q", n, want, f.stderr.String())
			}
			if _, err := os.Stat(state.NoticePath(stateDir, f.root.Path)); err == nil {
				t.Error("a notice was left behind")
			}
		})
	}
}

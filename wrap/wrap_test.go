package wrap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/state"
)

func TestFindBinarySkipsItself(t *testing.T) {
	base := t.TempDir()
	self := filepath.Join(base, "tether")
	os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755)
	shims := filepath.Join(base, "shims")
	linkDir := filepath.Join(base, "links")
	hardDir := filepath.Join(base, "hard")
	realDir := filepath.Join(base, "real")
	for _, d := range []string{shims, linkDir, hardDir, realDir} {
		os.MkdirAll(d, 0o755)
	}
	os.Symlink(self, filepath.Join(shims, "claude"))
	os.Symlink(self, filepath.Join(linkDir, "claude"))
	os.Link(self, filepath.Join(hardDir, "claude"))
	os.WriteFile(filepath.Join(realDir, "claude"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(base, "claude"), []byte("not executable"), 0o644)

	env := map[string]string{"PATH": strings.Join([]string{shims, linkDir, base, hardDir, realDir}, ":")}
	got, err := FindBinary("claude", func(k string) string { return env[k] }, self, []string{shims})
	if err != nil || got != filepath.Join(realDir, "claude") {
		t.Errorf("FindBinary = %q, %v", got, err)
	}

	env["PATH"] = strings.Join([]string{shims, linkDir, hardDir}, ":")
	_, err = FindBinary("claude", func(k string) string { return env[k] }, self, nil)
	if err == nil || !strings.Contains(err.Error(), linkDir) || !strings.Contains(err.Error(), "TETHER_CLAUDE_BIN") {
		t.Errorf("not found: %v", err)
	}

	env["TETHER_CLAUDE_BIN"] = filepath.Join(realDir, "claude")
	if got, err := FindBinary("claude", func(k string) string { return env[k] }, self, nil); err != nil || got != env["TETHER_CLAUDE_BIN"] {
		t.Errorf("override: %q %v", got, err)
	}
	env["TETHER_CLAUDE_BIN"] = filepath.Join(base, "claude")
	if _, err := FindBinary("claude", func(k string) string { return env[k] }, self, nil); err == nil {
		t.Error("non-executable override accepted")
	}
}

const sid = "d9f7843f-07d6-4b50-9048-40676f77f965"

type fixture struct {
	t       *testing.T
	home    string
	root    identity.Root
	claude  string
	logPath string
	stderr  bytes.Buffer
	calls   []Child
	// script is what each successive fake run does.
	script []func(c Child) int
}

func newFixture(t *testing.T) *fixture {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(home, "src", "project")
	os.MkdirAll(proj, 0o755)
	return &fixture{t: t, home: home, root: identity.Resolve(proj), claude: filepath.Join(home, ".claude"), logPath: filepath.Join(home, "events.jsonl")}
}

func (f *fixture) transcriptPath(cwd string) string {
	name, _ := claude.ProjectDirName(cwd)
	return filepath.Join(f.claude, "projects", name, sid+".jsonl")
}

func (f *fixture) writeTranscript(cwd string, body string) string {
	p := f.transcriptPath(cwd)
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte(body), 0o600)
	return p
}

func (f *fixture) run(args ...string) int {
	f.t.Helper()
	code, err := Run(Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Args: args, Root: f.root, Env: []string{"HOME=" + f.home, identity.EnvRoot + "=/stale"},
		Stderr: &f.stderr,
		Log:    eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec: func(c Child) (int, error) {
			f.calls = append(f.calls, c)
			if len(f.script) == 0 {
				return 0, nil
			}
			step := f.script[0]
			f.script = f.script[1:]
			return step(c), nil
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return code
}

func (f *fixture) events() []string {
	var evs []string
	eventlog.ReadAll(f.logPath, func(r eventlog.Record) { evs = append(evs, r.Event) })
	return evs
}

func envValue(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

func userRecord(cwd string) string {
	return `{"parentUuid":null,"type":"user","uuid":"u1","sessionId":"` + sid + `","cwd":"` + cwd + `","message":{"role":"user","content":"hi"}}` + "\n"
}

func TestPassThrough(t *testing.T) {
	f := newFixture(t)
	f.script = []func(Child) int{func(Child) int { return 7 }}
	args := []string{"-p", "hello; $(rm -rf /)", "--model", "opus"}
	if code := f.run(args...); code != 7 {
		t.Errorf("exit %d, want the child's 7", code)
	}
	if len(f.calls) != 1 {
		t.Fatalf("%d runs", len(f.calls))
	}
	c := f.calls[0]
	if !reflect.DeepEqual(c.Args, args) || c.Dir != f.root.Dir || c.Path != "/usr/bin/claude-real" {
		t.Errorf("child %+v", c)
	}
	if got := envValue(c.Env, identity.EnvRoot); !reflect.DeepEqual(got, []string{f.root.Path}) {
		t.Errorf("TETHER_IDENTITY_ROOT = %q", got)
	}
	if f.stderr.Len() != 0 {
		t.Errorf("stderr %q", f.stderr.String())
	}
	if ev := f.events(); !reflect.DeepEqual(ev, []string{"spawn", "end"}) {
		t.Errorf("events %v", ev)
	}
	data, _ := os.ReadFile(f.logPath)
	if bytes.Contains(data, []byte("hello")) {
		t.Error("the prompt leaked into the lifecycle log")
	}
}

func TestMissingSessionStartsFreshOnce(t *testing.T) {
	f := newFixture(t)
	f.script = []func(Child) int{func(Child) int { return 0 }}
	code := f.run("--resume", sid, "-p", "go on")
	if code != 0 || len(f.calls) != 1 {
		t.Fatalf("code %d calls %d", code, len(f.calls))
	}
	if !reflect.DeepEqual(f.calls[0].Args, []string{"-p", "go on"}) {
		t.Errorf("fresh args %q", f.calls[0].Args)
	}
	want := "tether: session d9f7843f could not be resumed (session not found) — starting fresh.\n"
	if f.stderr.String() != want {
		t.Errorf("notice %q", f.stderr.String())
	}
	if ev := f.events(); !reflect.DeepEqual(ev, []string{"spawn", "resume_failure", "fresh_fallback"}) {
		t.Errorf("events %v", ev)
	}
}

func TestEmptyAndCorruptTranscripts(t *testing.T) {
	for body, reason := range map[string]string{"": "transcript is empty", "\x00\x01\x02garbage\n": "transcript is corrupt"} {
		f := newFixture(t)
		f.writeTranscript(f.root.Path, body)
		f.run("-r", sid)
		if len(f.calls) != 1 || len(f.calls[0].Args) != 0 || !strings.Contains(f.stderr.String(), "("+reason+")") {
			t.Errorf("%q: calls %+v stderr %q", reason, f.calls, f.stderr.String())
		}
	}
}

func TestPromptTooLongRetriesOnce(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	tooLong := func(Child) int {
		fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(`{"parentUuid":"u1","type":"user","uuid":"u2","message":{"role":"user","content":"go on"}}` + "\n")
		fh.WriteString(`{"parentUuid":"u2","type":"assistant","uuid":"u3","isApiErrorMessage":true,"error":"invalid_request","message":{"model":"<synthetic>","content":[{"type":"text","text":"Prompt is too long"}]}}` + "\n")
		fh.Close()
		return 1
	}
	f.script = []func(Child) int{tooLong, func(Child) int { return 5 }}
	code := f.run("-p", "--resume", sid, "go on")
	if code != 5 {
		t.Errorf("exit %d, want the fresh run's 5", code)
	}
	if len(f.calls) != 2 || !reflect.DeepEqual(f.calls[1].Args, []string{"-p", "go on"}) {
		t.Errorf("calls %+v", f.calls)
	}
	if !strings.Contains(f.stderr.String(), "(prompt too long)") || strings.Count(f.stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q", f.stderr.String())
	}
}

func TestOtherFailuresAreNotRetried(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	badKey := func(Child) int {
		fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(`{"parentUuid":"u1","type":"user","uuid":"u2","message":{"role":"user","content":"go on"}}` + "\n")
		fh.WriteString(`{"parentUuid":"u2","type":"assistant","uuid":"u3","isApiErrorMessage":true,"error":"authentication_failed","message":{"model":"<synthetic>","content":[{"type":"text","text":"Invalid API key"}]}}` + "\n")
		fh.Close()
		return 1
	}
	f.script = []func(Child) int{badKey}
	if code := f.run("-p", "--resume", sid, "go on"); code != 1 || len(f.calls) != 1 || f.stderr.Len() != 0 {
		t.Errorf("code %d calls %d stderr %q", code, len(f.calls), f.stderr.String())
	}
	// The user interrupting (a signal status) is never retried, even with
	// nothing appended; a failure with nothing appended is the resume's
	// fault only when the agent says it could not load the session.
	f.script = []func(Child) int{func(Child) int { return 130 }}
	f.calls = nil
	if code := f.run("--resume", sid); code != 130 || len(f.calls) != 1 {
		t.Errorf("interrupted: code %d calls %d", code, len(f.calls))
	}
	f.script = []func(Child) int{noConversation, func(Child) int { return 0 }}
	f.calls = nil
	if code := f.run("--resume", sid); code != 0 || len(f.calls) != 2 {
		t.Errorf("not loaded: code %d calls %d", code, len(f.calls))
	}
}

// noConversation is what Claude Code does when it cannot load the
// session: its message on stderr, exit status 1, nothing appended.
func noConversation(c Child) int {
	fmt.Fprintf(c.Stderr, "No conversation found with session ID: %s\n", sid)
	return 1
}

func TestResumeFromRecordedCwd(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.home, "src", "elsewhere")
	os.MkdirAll(other, 0o755)
	f.writeTranscript(other, userRecord(other))
	f.run("--resume", sid)
	if len(f.calls) != 1 || f.calls[0].Dir != other {
		t.Fatalf("calls %+v", f.calls)
	}
	if got := envValue(f.calls[0].Env, identity.EnvRoot); !reflect.DeepEqual(got, []string{other}) {
		t.Errorf("root %q", got)
	}
	if ev := f.events(); len(ev) == 0 || ev[0] != "resume_cwd_repair" {
		t.Errorf("events %v", ev)
	}
}

func TestTitleResumeIsNotChecked(t *testing.T) {
	f := newFixture(t)
	f.script = []func(Child) int{func(Child) int { return 1 }}
	if code := f.run("--resume", "my session title"); code != 1 || len(f.calls) != 1 || f.stderr.Len() != 0 {
		t.Errorf("code %d calls %d stderr %q", code, len(f.calls), f.stderr.String())
	}
}

func TestHandoffOnFallback(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	f.script = []func(Child) int{noConversation, func(Child) int { return 0 }}
	var gotPath, gotReason string
	code, err := Run(Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Args: []string{"-p", "--resume", sid, "go on"}, Root: f.root,
		Stderr:  &f.stderr,
		Handoff: func(path, reason string) string { gotPath, gotReason = path, reason; return "SUMMARY" },
		Exec: func(c Child) (int, error) {
			f.calls = append(f.calls, c)
			step := f.script[0]
			f.script = f.script[1:]
			return step(c), nil
		},
	})
	if err != nil || code != 0 || len(f.calls) != 2 {
		t.Fatalf("code %d err %v calls %d", code, err, len(f.calls))
	}
	if gotPath != p || gotReason != "the agent could not load the session" {
		t.Errorf("handoff called with %q %q", gotPath, gotReason)
	}
	if want := []string{"-p", "go on", "--append-system-prompt", "SUMMARY"}; !reflect.DeepEqual(f.calls[1].Args, want) {
		t.Errorf("fresh args %q, want %q", f.calls[1].Args, want)
	}
}

// TestStaleSessionIsNotRetried: after a resume failed, the same unchanged
// transcript is not handed to the CLI again; a changed one is.
func TestStaleSessionIsNotRetried(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	state := filepath.Join(f.home, "state")
	run := func(steps ...func(Child) int) {
		f.calls = nil
		f.script = steps
		f.stderr.Reset()
		if _, err := f.runOpts(func(o *Options) {
			o.StateDir, o.Threshold = state, 0
			o.Exec = func(c Child) (int, error) {
				f.calls = append(f.calls, c)
				step := f.script[0]
				f.script = f.script[1:]
				return step(c), nil
			}
		}, "--resume", sid); err != nil {
			t.Fatal(err)
		}
	}
	ok := func(Child) int { return 0 }
	run(noConversation, ok)
	if len(f.calls) != 2 {
		t.Fatalf("first failure: %d runs", len(f.calls))
	}
	run(ok)
	if len(f.calls) != 1 || len(f.calls[0].Args) != 0 || !strings.Contains(f.stderr.String(), "the agent could not load the session, as on") {
		t.Fatalf("stale session resumed again: calls %+v stderr %q", f.calls, f.stderr.String())
	}
	// A changed transcript (trimmed, restored, appended) gets a new chance.
	os.WriteFile(p, []byte(userRecord(f.root.Path)+userRecord(f.root.Path)), 0o600)
	run(ok)
	if len(f.calls) != 1 || f.calls[0].Args[0] != "--resume" {
		t.Errorf("changed transcript not resumed: %+v", f.calls)
	}
}

// TestNewSessionIDInEndRecord: a new session's id is unknown at spawn; the
// hooks record it while it runs, and the end record carries it. Neither
// record says "new".
func TestNewSessionIDInEndRecord(t *testing.T) {
	f := newFixture(t)
	stateDir := filepath.Join(f.home, "state")
	_, err := Run(Options{
		Agent: claude.New(f.claude), Bin: "/usr/bin/claude-real", Root: f.root, Stderr: &f.stderr, StateDir: stateDir,
		Log: eventlog.Open(eventlog.Options{Path: f.logPath}),
		Exec: func(c Child) (int, error) {
			// What the SessionStart hook does while the program runs.
			return 0, state.Save(stateDir, state.Session{SessionID: sid, Harness: "claude-code", IdentityRoot: f.root.Path, Updated: time.Now()})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	eventlog.ReadAll(f.logPath, func(r eventlog.Record) { got[r.Event] = r.SessionID })
	if got["spawn"] != "" || got["end"] != sid {
		t.Errorf("sessions of spawn and end: %q, want \"\" and %s", got, sid)
	}
}

// Another install's shim (a link to its own tether-hot) is not the real
// program: two installs' shims would run each other for ever.
func TestFindBinarySkipsOtherInstallsShims(t *testing.T) {
	base := t.TempDir()
	self := filepath.Join(base, "a", "tether-hot")
	other := filepath.Join(base, "b", "tether-hot")
	shims, realDir := filepath.Join(base, "b", "shims"), filepath.Join(base, "real")
	for _, d := range []string{filepath.Dir(self), shims, realDir} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(other, []byte("#!/bin/sh\n#other\n"), 0o755)
	os.Symlink(other, filepath.Join(shims, "claude"))
	os.WriteFile(filepath.Join(realDir, "claude"), []byte("#!/bin/sh\n"), 0o755)
	env := map[string]string{"PATH": shims + ":" + realDir}
	if got, err := FindBinary("claude", func(k string) string { return env[k] }, self, nil); err != nil || got != filepath.Join(realDir, "claude") {
		t.Errorf("FindBinary = %q, %v", got, err)
	}
}

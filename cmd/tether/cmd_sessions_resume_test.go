package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/state"
)

func TestSessionsResumePrintQuotesHostilePaths(t *testing.T) {
	for _, name := range []string{"with space", `it's "quoted"`, "dollar $HOME `x`", "new\nline", "ünïcode & semi;colon", "-dash"} {
		ta := newTestApp(t)
		dir := filepath.Join(ta.home, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		withSessions(t, ta, dir)
		if code := ta.run("sessions", "resume", "--print", "4a36"); code != 0 {
			t.Fatalf("%q: exit %d %s", name, code, ta.err)
		}
		line := strings.TrimSuffix(ta.out.String(), "\n")
		// Run the printed command with claude replaced by a recorder.
		script := `claude() { pwd; printf '%s\n' "$@"; }; ` + line
		out, err := exec.Command("sh", "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: sh: %v: %s\n%s", name, err, out, line)
		}
		want := dir + "\n--resume\n" + claudeOld + "\n"
		if string(out) != want {
			t.Errorf("%q: printed %q ran as %q, want %q", name, line, out, want)
		}
	}
}

func TestSessionsResumeExecRefuseAndMissingDir(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "work dir")
	os.MkdirAll(dir, 0o755)
	withSessions(t, ta, dir)
	var gotDir string
	var gotArgv []string
	orig := execResume
	execResume = func(d string, argv, env []string) error { gotDir, gotArgv = d, argv; return nil }
	defer func() { execResume = orig }()

	if code := ta.run("sessions", "resume", "codex:01a2"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	// Through the wrapper (tether run), so the preflight and the fallback
	// apply as they do to 'codex resume' typed in a shell.
	self, _ := os.Executable()
	if gotDir != dir || len(gotArgv) == 0 || gotArgv[0] != self || strings.Join(gotArgv[1:], " ") != "run codex resume "+codexID {
		t.Errorf("exec %q %v", gotDir, gotArgv)
	}
	events, _ := os.ReadFile(filepath.Join(ta.env["XDG_STATE_HOME"], "tether", "events.jsonl"))
	if !strings.Contains(string(events), `"event":"resume"`) || !strings.Contains(string(events), `"harness":"codex"`) || strings.Contains(string(events), "TOOL_BASH") {
		t.Errorf("lifecycle log: %s", events)
	}
	// Running (this test process's own pid is alive): refused with 4.
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "sessions", fmt.Sprint(os.Getpid())+".json"),
		[]byte(fmt.Sprintf(`{"pid":%d,"sessionId":%q,"tmux":"main:@1.%%2"}`, os.Getpid(), claudeNew)))
	gotArgv = nil
	ta.err.Reset()
	if code := ta.run("sessions", "resume", "d9f7"); code != 4 || gotArgv != nil || !strings.Contains(ta.err.String(), "tmux session main") {
		t.Errorf("running: exit %d argv %v err %q", code, gotArgv, ta.err)
	}
	ta.out.Reset()
	ta.run("sessions", "--json", "--state", "running")
	if m := validate(t, "list", ta.out.Bytes()); len(m["sessions"].([]any)) != 1 {
		t.Errorf("--state running: %s", ta.out)
	}
	if code := ta.run("sessions", "resume", "--force", "d9f7"); code != 0 || strings.Join(gotArgv[1:], " ") != "run --force claude --resume "+claudeNew {
		t.Errorf("--force: exit %d argv %v", code, gotArgv)
	}
	// The cwd is gone: a clear error, nothing run.
	os.RemoveAll(dir)
	gotArgv = nil
	ta.err.Reset()
	if code := ta.run("sessions", "resume", "4a36"); code != 1 || gotArgv != nil || !strings.Contains(ta.err.String(), "no longer exists") {
		t.Errorf("missing dir: exit %d %q", code, ta.err)
	}
}

type fakeTmux struct {
	live     map[string]bool
	started  []string
	attached string
}

func (f *fakeTmux) HasSession(n string) bool { return f.live[n] }
func (f *fakeTmux) NewSession(name, dir string, argv, env []string) error {
	f.live[name] = true
	f.started = append(f.started, name+"|"+dir+"|"+strings.Join(argv, " "))
	return nil
}
func (f *fakeTmux) Attach(n string) error { f.attached = n; return nil }

func TestSessionsResumeTmux(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "my.proj")
	os.MkdirAll(dir, 0o755)
	withSessions(t, ta, dir)
	ft := &fakeTmux{live: map[string]bool{"my_proj": true}}
	orig := newTmux
	newTmux = func(func(string) string) catalog.Tmux { return ft }
	defer func() { newTmux = orig }()

	if code := ta.run("sessions", "resume", "--tmux", "4a36"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	self, _ := os.Executable()
	if ft.attached != "my_proj-2" || ft.started[0] != "my_proj-2|"+dir+"|"+self+" run claude --resume "+claudeOld {
		t.Errorf("conflict naming: %v attached %s", ft.started, ft.attached)
	}
	bpath := filepath.Join(ta.env["XDG_STATE_HOME"], "tether", "bindings.json")
	b, err := state.LoadBindings(bpath)
	if err != nil || b.Sessions["claude-code:"+claudeOld].Tmux != "my_proj-2" {
		t.Errorf("binding %+v %v", b, err)
	}
	if code := ta.run("sessions", "resume", "--tmux=review", "d9f7"); code != 0 || ft.attached != "review" {
		t.Errorf("named: exit %d attached %s", code, ft.attached)
	}
	// The remembered name is preferred next time (after that tmux died).
	ft.live = map[string]bool{}
	if code := ta.run("sessions", "resume", "--tmux", "4a36"); code != 0 || ft.attached != "my_proj-2" {
		t.Errorf("remembered: exit %d attached %s", code, ft.attached)
	}
	if fi, _ := os.Stat(bpath); fi.Mode().Perm() != 0o600 {
		t.Errorf("bindings mode %v", fi.Mode())
	}
}

// detachedTmux is a tmux with no client to attach to (resume from a
// script, a cron job, or a tmux run-shell).
type detachedTmux struct{ fakeTmux }

func (d *detachedTmux) CanAttach() bool { return false }
func (d *detachedTmux) Attach(n string) error {
	return fmt.Errorf("no current client")
}

// TestSessionsResumeTmuxWithoutClient: one line saying where the session
// runs and how to attach; no tmux error, exit 0.
func TestSessionsResumeTmuxWithoutClient(t *testing.T) {
	ta := newTestApp(t)
	dir := filepath.Join(ta.home, "it's here")
	os.MkdirAll(dir, 0o755)
	withSessions(t, ta, dir)
	ft := &detachedTmux{fakeTmux{live: map[string]bool{}}}
	orig := newTmux
	newTmux = func(func(string) string) catalog.Tmux { return ft }
	defer func() { newTmux = orig }()
	if code := ta.run("sessions", "resume", "--tmux", "4a36"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	want := "tether: session 4a3624db runs in tmux session it's here; attach with: tmux attach -t '=it'\\''s here'\n"
	if ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
}

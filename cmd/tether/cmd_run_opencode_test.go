package main

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
	"github.com/tether-dev/tether/wrap"
)

// openCodeApp is a test app whose OpenCode database holds the samples,
// the first one recorded in a directory of its own (returned), and
// whose opencode is a do-nothing script.
func openCodeApp(t *testing.T) (*testApp, string) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.home, "work", "proj")
	os.MkdirAll(proj, 0o755)
	db, err := sql.Open("sqlite", sessiontest.OpenCodeDB(t, filepath.Join(ta.env["XDG_DATA_HOME"], "opencode")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE session SET directory = ? WHERE id = ?", proj, sessiontest.SampleOpenCode); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fake := filepath.Join(ta.home, "bin", "opencode")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	ta.env["TETHER_OPENCODE_BIN"] = fake
	return ta, proj
}

// `tether run opencode … --session ID` from elsewhere runs OpenCode in
// the session's directory (resumed from another one it never exits),
// arguments untouched; the exit line has the session's context from the
// database and names the command after `opencode run`; an unknown id
// gets one notice and a fresh start.
func TestRunOpenCodeResume(t *testing.T) {
	ta, proj := openCodeApp(t)
	ta.IO.StderrTTY = true
	var got []wrap.Child
	ta.exec = func(c wrap.Child) (int, error) { got = append(got, c); return 0, nil }
	id := sessiontest.SampleOpenCode
	args := []string{"run", "--session", id, "--format", "json"}
	if code := ta.run(append([]string{"run", "opencode"}, args...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if len(got) != 1 || got[0].Dir != proj || !reflect.DeepEqual(got[0].Args, args) ||
		lastEnvOf(got[0].Env, identity.EnvRoot) != proj {
		t.Fatalf("child %+v", got)
	}
	// The short id leaves out the ses_ every id starts with.
	want := "tether: session dcd13948 · ctx 0.6% · resume: opencode --session " + id + "\n"
	if ta.err.String() != want {
		t.Errorf("exit line %q, want %q", ta.err.String(), want)
	}

	ta.err.Reset()
	got = nil
	if code := ta.run("run", "opencode", "-s", "ses_0123456789abUnknownSession"); code != 0 {
		t.Fatalf("unknown: exit %d: %s", code, ta.err)
	}
	if len(got) != 1 || len(got[0].Args) != 0 || !strings.Contains(ta.err.String(), "could not be resumed (session not found) — starting fresh.") {
		t.Errorf("unknown id: %+v %q", got, ta.err.String())
	}
}

// A session an opencode process was started on is refused by `tether
// run` and by `tether sessions resume` (exit 4), --force overrides;
// --print prints the command, in the session's directory.
func TestResumeOpenCodeRunningAndPrint(t *testing.T) {
	ta, proj := openCodeApp(t)
	id := sessiontest.SampleOpenCode
	ta.exec = func(c wrap.Child) (int, error) { return 0, nil }
	if code := ta.run("sessions", "resume", "--print", id); code != 0 || ta.out.String() != "cd "+proj+" && opencode --session "+id+"\n" {
		t.Errorf("--print: exit %d %q", code, ta.out)
	}
	var gotDir string
	var gotArgv []string
	orig := execResume
	execResume = func(d string, argv, env []string) error { gotDir, gotArgv = d, argv; return nil }
	defer func() { execResume = orig }()
	self, _ := os.Executable()
	if code := ta.run("sessions", "resume", id); code != 0 || gotDir != proj || strings.Join(gotArgv, " ") != self+" run opencode --session "+id {
		t.Errorf("resume: exit %d %s %q", code, gotDir, gotArgv)
	}

	// A process whose argv is an opencode's on the id (a shell named
	// opencode: /proc shows argv[0] and the words after it).
	link := filepath.Join(t.TempDir(), "opencode")
	os.Symlink("/bin/sh", link)
	p := exec.Command(link, "-c", "sleep 30; :", "-s", id)
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { p.Process.Kill(); p.Wait() }()
	time.Sleep(50 * time.Millisecond)
	gotArgv = nil
	ta.err.Reset()
	if code := ta.run("sessions", "resume", id); code != 4 || gotArgv != nil || !strings.Contains(ta.err.String(), "is running") {
		t.Errorf("running: exit %d argv %q err %q", code, gotArgv, ta.err)
	}
	ta.err.Reset()
	if code := ta.run("run", "opencode", "-s", id); code != 4 || !strings.Contains(ta.err.String(), "is running in process") {
		t.Errorf("tether run, running: exit %d err %q", code, ta.err)
	}
	if code := ta.run("sessions", "resume", "--force", id); code != 0 || strings.Join(gotArgv[1:], " ") != "run --force opencode --session "+id {
		t.Errorf("--force: exit %d argv %q", code, gotArgv)
	}
}

func lastEnvOf(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}

package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/procfs"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// fakeProc builds a /proc tree: one directory per process.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) fakeProc {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  1 2 3\nbtime 1700000000\n"), 0o644)
	return fakeProc{t, root}
}

// add makes process pid: argv, executable, cwd, environment, open files
// and a start time in seconds after boot.
func (f fakeProc) add(pid int, argv []string, exe, cwd string, env []string, startSec int, open ...string) {
	d := filepath.Join(f.root, fmt.Sprint(pid))
	os.MkdirAll(filepath.Join(d, "fd"), 0o755)
	os.WriteFile(filepath.Join(d, "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644)
	os.WriteFile(filepath.Join(d, "environ"), []byte(strings.Join(env, "\x00")+"\x00"), 0o644)
	os.WriteFile(filepath.Join(d, "stat"), []byte(fmt.Sprintf("%d (node) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0", pid, startSec*100)), 0o644)
	os.Symlink(exe, filepath.Join(d, "exe"))
	os.Symlink(cwd, filepath.Join(d, "cwd"))
	for i, p := range open {
		os.Symlink(p, filepath.Join(d, "fd", fmt.Sprint(3+i)))
	}
}

func liveFixture(t *testing.T) (configDir, cwd, id, path string) {
	configDir = filepath.Join(t.TempDir(), "claude")
	cwd = "/home/example/src/proj"
	name, _ := ProjectDirName(cwd)
	id = "4a3624db-9f07-42fe-a7f0-a27427d60850"
	path = filepath.Join(ProjectsDir(configDir), name, id+".jsonl")
	os.MkdirAll(filepath.Dir(path), 0o700)
	os.WriteFile(path, []byte("{}\n"), 0o600)
	return
}

func TestLiveWithoutPidFile(t *testing.T) {
	configDir, cwd, id, path := liveFixture(t)
	env := []string{"CLAUDE_CONFIG_DIR=" + configDir, "HOME=/home/example"}
	now := time.Unix(1700000000+3600, 0)
	old := now.Add(-time.Hour)
	check := func(f fakeProc, mtime time.Time) Liveness {
		os.Chtimes(path, mtime, mtime)
		return ScanLive(configDir, LiveOptions{Proc: procfs.FS{Root: f.root}, Now: func() time.Time { return now }, Self: 1}).Check(id, path)
	}

	// 2.0.77 rewrote its argv to its title; it runs in the project and
	// wrote the transcript seconds ago: possibly live.
	f := newFakeProc(t)
	f.add(100, []string{"claude"}, "/usr/bin/node", cwd, env, 600)
	if l := check(f, now.Add(-5*time.Second)); !l.Live() || !l.Possible || l.PID != 100 {
		t.Errorf("recent write, claude in the project: %+v", l)
	}
	// Written since the process started (an idle interactive session).
	if l := check(f, now.Add(-30*time.Minute)); !l.Live() || l.PID != 100 {
		t.Errorf("written since the process started: %+v", l)
	}
	// Last written before the process started, long ago: another session.
	if l := check(f, time.Unix(1700000000+100, 0)); l.Live() {
		t.Errorf("old transcript: %+v", l)
	}

	// A process started for this session (argv intact): certain.
	f = newFakeProc(t)
	f.add(200, []string{"node", "/opt/claude-code/cli.js", "-p", "hi", "--resume", id}, "/usr/bin/node", "/elsewhere", env, 3000)
	if l := check(f, old); !l.Live() || l.Possible || l.PID != 200 {
		t.Errorf("argv names it: %+v", l)
	}
	// Holding the transcript open: certain.
	f = newFakeProc(t)
	f.add(300, []string{"claude"}, "/home/example/.local/share/claude/versions/2.0.77", "/elsewhere", env, 3000, path)
	if l := check(f, old); !l.Live() || l.Possible || l.PID != 300 {
		t.Errorf("transcript open: %+v", l)
	}

	// Not evidence: another config dir, another project, another session
	// named in argv, a process that is not Claude Code, this process.
	f = newFakeProc(t)
	f.add(400, []string{"claude"}, "/usr/bin/node", cwd, []string{"CLAUDE_CONFIG_DIR=/home/example/other"}, 3000)
	f.add(401, []string{"claude"}, "/usr/bin/node", "/home/example/src/other", env, 3000)
	f.add(402, []string{"claude", "--resume", "0d6f7d3e-0000-4000-8000-000000000000"}, "/usr/bin/node", cwd, env, 3000)
	f.add(403, []string{"vim", path}, "/usr/bin/vim", cwd, env, 3000)
	f.add(1, []string{"claude", "--resume", id}, "/usr/bin/tether", cwd, env, 3000)
	if l := check(f, now.Add(-time.Second)); l.Live() {
		t.Errorf("no evidence, yet: %+v", l)
	}

	// The process names the config dir through a symlink.
	link := filepath.Join(t.TempDir(), "dotclaude")
	os.Symlink(configDir, link)
	f = newFakeProc(t)
	f.add(500, []string{"claude"}, "/usr/bin/node", cwd, []string{"CLAUDE_CONFIG_DIR=" + link}, 600)
	if l := check(f, now.Add(-5*time.Second)); !l.Live() || l.PID != 500 {
		t.Errorf("config dir through a symlink: %+v", l)
	}

	// Without /proc at all a recent write is all there is.
	os.Chtimes(path, now, now)
	if l := ScanLive(configDir, LiveOptions{Proc: procfs.FS{Root: filepath.Join(t.TempDir(), "none")}, Now: func() time.Time { return now }}).Check(id, path); !l.Live() || !l.Possible {
		t.Errorf("no /proc, recent write: %+v", l)
	}
}

// TestLiveRealProcess: a real child process named claude holding the
// transcript open is found through the machine's /proc.
func TestLiveRealProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	configDir, _, id, path := liveFixture(t)
	f, _ := os.Open(path)
	defer f.Close()
	pid := testutil.StartFakeClaude(t, "", configDir, f)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	// Our own process holds it too, but Self is never counted.
	if l := Live(configDir, id, path); !l.Live() || l.PID != pid || l.Possible {
		t.Errorf("live check: %+v (child %d)", l, pid)
	}
}

// TestLivePidFileProcessIsNotGuessed: a Claude Code 2.1 process that
// wrote sessions/<pid>.json runs the session that file names; the other
// sessions of its directory are not "possibly running" because of it (the
// 2.0 guess is for processes that leave no pid file).
func TestLivePidFileProcessIsNotGuessed(t *testing.T) {
	configDir, cwd, idA, pathA := liveFixture(t)
	idB := "0d6f7d3e-1111-4000-8000-000000000002"
	pathB := filepath.Join(filepath.Dir(pathA), idB+".jsonl")
	os.WriteFile(pathB, []byte("{}\n"), 0o600)
	now := time.Unix(1700000000+3600, 0)
	for _, p := range []string{pathA, pathB} {
		recent := now.Add(-5 * time.Second) // both written since the process started
		os.Chtimes(p, recent, recent)
	}
	os.MkdirAll(SessionsDir(configDir), 0o700)
	os.WriteFile(filepath.Join(SessionsDir(configDir), "100.json"),
		[]byte(`{"pid":100,"sessionId":"`+idA+`","cwd":"`+cwd+`","status":"idle","tmux":"work:@1.%3"}`), 0o600)
	env := []string{"CLAUDE_CONFIG_DIR=" + configDir, "HOME=/home/example"}
	f := newFakeProc(t)
	f.add(100, []string{"claude"}, "/home/example/.local/share/claude/versions/2.1.332", cwd, env, 600)
	alive := map[int]bool{100: true}
	scan := func() *LiveSet {
		return ScanLive(configDir, LiveOptions{Proc: procfs.FS{Root: f.root}, Now: func() time.Time { return now },
			Alive: func(pid int) bool { return alive[pid] }, Self: 1})
	}

	set := scan()
	if l := set.Check(idA, pathA); !l.Live() || l.Possible || l.PID != 100 || l.Session == nil || l.Session.Tmux != "work:@1.%3" {
		t.Errorf("A, named by the pid file: %+v", l)
	}
	if l := set.Check(idB, pathB); l.Live() {
		t.Errorf("B is taken for running because 2.1 process 100 (running A) is in its directory: %+v", l)
	}

	// A 2.0 process (no pid file) in the same directory still makes B
	// possibly live: nothing says which session it runs.
	f.add(200, []string{"claude"}, "/usr/bin/node", cwd, env, 600)
	alive[200] = true
	if l := scan().Check(idB, pathB); !l.Live() || !l.Possible || l.PID != 200 {
		t.Errorf("B with a 2.0 process in its directory: %+v", l)
	}
}

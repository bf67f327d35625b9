package opencode

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/procfs"
)

// fakeProc is a /proc tree: each process with its argv, cwd and start
// time (boot at btime, the process started offset later).
type fakeProc struct {
	t     *testing.T
	root  string
	btime time.Time
}

func newFakeProc(t *testing.T) *fakeProc {
	p := &fakeProc{t: t, root: t.TempDir(), btime: time.Unix(1796000000, 0)}
	p.write("stat", fmt.Sprintf("cpu  1 2 3\nbtime %d\n", p.btime.Unix()))
	return p
}

func (p *fakeProc) write(name, body string) {
	path := filepath.Join(p.root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// add is process pid, started at start in cwd, running argv.
func (p *fakeProc) add(pid int, cwd string, start time.Time, argv ...string) {
	dir := strconv.Itoa(pid)
	p.write(dir+"/cmdline", strings.Join(argv, "\x00")+"\x00")
	ticks := start.Sub(p.btime) / (time.Second / 100)
	// starttime is field 22: the 20th after the name, the state (S) first.
	fields := make([]string, 20)
	for i := range fields {
		fields[i] = "0"
	}
	fields[0], fields[19] = "S", strconv.FormatInt(int64(ticks), 10)
	p.write(dir+"/stat", fmt.Sprintf("%d (opencode run) %s\n", pid, strings.Join(fields, " ")))
	if cwd != "" {
		if err := os.Symlink(cwd, filepath.Join(p.root, dir, "cwd")); err != nil {
			p.t.Fatal(err)
		}
	}
}

// A process started on the id runs the session for certain, wherever it
// runs; one started with -c, or on a new session, may run a session of
// its directory updated since it started (Possible), and no other; other
// programs, other ids, a fork of the id and subcommands without a
// session say nothing.
func TestLiveAt(t *testing.T) {
	proj, other := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(proj, link)
	p := newFakeProc(t)
	start := p.btime.Add(time.Hour)
	oc := "/home/example/.opencode/bin/opencode"
	p.add(10, proj, start, "/usr/bin/vim", "-s", "ses_a")
	p.add(11, other, start, oc, "-s", "ses_b")
	p.add(12, other, start, oc, "run", "--session=ses_a")
	p.add(13, proj, start, oc, "run", "-s", "ses_c", "--fork")
	p.add(14, proj, start, oc, "serve", "--port", "4096")
	p.add(15, proj, start, oc, "-c")
	a := New("", "")
	a.Proc = procfs.FS{Root: p.root}
	after, before := start.Add(time.Minute), start.Add(-time.Minute)

	if l := a.LiveAt("ses_a", proj, before); l.PID != 12 || !l.Live() || l.Possible {
		t.Errorf("ses_a, started on it from another directory: %+v", l)
	}
	if l := a.Live("ses_a", ""); l.PID != 12 {
		t.Errorf("Live: %+v", l)
	}
	if l := a.LiveAt("ses_c", proj, before); l.Live() {
		t.Errorf("ses_c is forked, not run, and not updated since: %+v", l)
	}
	if l := a.LiveAt("ses_d", proj, after); l.PID != 13 || !l.Possible {
		t.Errorf("ses_d, of the -c/fork process's directory, updated since it started: %+v", l)
	}
	if l := a.LiveAt("ses_d", link, after); l.PID != 13 || !l.Possible {
		t.Errorf("ses_d, its directory spelt through a link: %+v", l)
	}
	for _, c := range []struct {
		name, dir string
		updated   time.Time
	}{{"updated before", proj, before}, {"another directory", other, after}, {"no directory", "", after}, {"no time", proj, time.Time{}}} {
		if l := a.LiveAt("ses_d", c.dir, c.updated); l.Live() {
			t.Errorf("ses_d, %s: %+v", c.name, l)
		}
	}
}

// The TUI's project directory, or run's --dir, is where a process works,
// not its cwd.
func TestLiveAtProjectArgument(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	p := newFakeProc(t)
	start := p.btime.Add(time.Hour)
	p.add(20, home, start, "opencode", "--log-level", "DEBUG", proj)
	p.add(21, home, start, "opencode", "run", "--dir", filepath.Base(proj), "hello")
	a := New("", "")
	a.Proc = procfs.FS{Root: p.root}
	if l := a.LiveAt("ses_x", proj, start.Add(time.Second)); l.PID != 20 || !l.Possible {
		t.Errorf("TUI in %s: %+v", proj, l)
	}
	if l := a.LiveAt("ses_x", home, start.Add(time.Second)); l.Live() && l.PID == 20 {
		t.Errorf("the TUI's cwd is not its directory: %+v", l)
	}
	if l := a.LiveAt("ses_x", filepath.Join(home, filepath.Base(proj)), start.Add(time.Second)); l.PID != 21 {
		t.Errorf("run --dir relative to its cwd: %+v", l)
	}
}

func TestReadCommand(t *testing.T) {
	cases := []struct {
		args []string
		want command
	}{
		{nil, command{session: true}},
		{[]string{"-s", "ses_a", "--model", "fake/m"}, command{session: true, id: "ses_a"}},
		{[]string{"--session=ses_a", "/p"}, command{session: true, id: "ses_a", project: "/p"}},
		{[]string{"run", "-c", "--format", "json", "hi there"}, command{session: true}},
		{[]string{"run", "--dir=/p", "-s", "ses_a", "--fork"}, command{session: true, project: "/p"}},
		{[]string{"--port", "0", "serve"}, command{}},
		{[]string{"session", "list"}, command{}},
		{[]string{"export", "ses_a"}, command{}},
	}
	for _, c := range cases {
		if got := readCommand(c.args); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.args, got, c.want)
		}
	}
}

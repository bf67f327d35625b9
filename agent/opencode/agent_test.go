package opencode

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/procfs"
)

func TestParseResume(t *testing.T) {
	cases := []struct {
		args        []string
		kind, id    string
		fork, print bool
		fresh       []string
	}{
		{[]string{"-s", "ses_a", "--model", "m"}, "id", "ses_a", false, false, []string{"--model", "m"}},
		{[]string{"/home/example/proj", "--session=ses_b"}, "id", "ses_b", false, false, []string{"/home/example/proj"}},
		{[]string{"run", "--session", "ses_c", "--fork"}, "id", "ses_c", true, true, []string{"run", "--fork"}},
		{[]string{"-c"}, "continue", "", false, false, []string{}},
		{[]string{"run", "say run -s please"}, "", "", false, true, []string{"run", "say run -s please"}},
	}
	for _, c := range cases {
		r := New("", "").ParseResume(c.args)
		if r.Kind != c.kind || r.ID != c.id || r.Fork != c.fork || r.Print != c.print || !reflect.DeepEqual(r.Fresh, c.fresh) {
			t.Errorf("%q: got %+v fresh %q", c.args, r, r.Fresh)
		}
	}
	args := []string{"--session=ses_b", "-m", "x"}
	if got := New("", "").ParseResume(args).WithID(args, "ses_full"); !reflect.DeepEqual(got, []string{"--session=ses_full", "-m", "x"}) {
		t.Errorf("WithID: %q", got)
	}
}

func TestHomeDBAndResume(t *testing.T) {
	a := New("/home/example/.local/share/opencode", "")
	if a.DB() != "/home/example/.local/share/opencode/opencode.db" || a.Name() != "opencode" || a.Command() != "opencode" {
		t.Errorf("agent: %s %s %s", a.DB(), a.Name(), a.Command())
	}
	if b := New("/d", "/elsewhere/oc.db"); b.DB() != "/elsewhere/oc.db" || b.At("/copy").(*Agent).DB() != "/copy/opencode.db" {
		t.Errorf("OPENCODE_DB: %s", b.DB())
	}
	if argv, ok := a.Resume("ses_a", "/p", false); !ok || strings.Join(argv, " ") != "opencode --session ses_a" {
		t.Errorf("resume: %q %v", argv, ok)
	}
	if _, ok := a.Resume("ses_a", "/p", true); ok {
		t.Error("the TUI cannot fork")
	}
}

// A session runs while an opencode process was started on its id; a
// process of another program, or on another id, says nothing.
func TestLiveFromProcessTable(t *testing.T) {
	root := t.TempDir()
	proc := func(pid int, argv ...string) {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(strings.Join(argv, "\x00")+"\x00"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proc(10, "/usr/bin/vim", "-s", "ses_a")
	proc(11, "/home/example/.bun/opencode", "-s", "ses_b")
	proc(12, "/home/example/.bun/opencode", "run", "--session=ses_a")
	a := New("", "")
	a.Proc = procfs.FS{Root: root}
	if l := a.Live("ses_a", ""); l.PID != 12 || !l.Live() {
		t.Errorf("ses_a: %+v", l)
	}
	if l := a.Live("ses_c", ""); l.Live() {
		t.Errorf("ses_c: %+v", l)
	}
}

// OpenCode's own message for an unknown id, as 1.18.33 prints it (run,
// then the TUI, coloured on a pipe too), is a load failure; other errors
// and the words elsewhere are not.
func TestLoadFailed(t *testing.T) {
	a := New("", "")
	for _, c := range []struct {
		stderr string
		want   bool
	}{
		{"\x1b[91m\x1b[1mError: \x1b[0mSession not found\n", true},
		{"\x1b[91m\x1b[1mError: \x1b[0mSession not found: ses_a\n", true},
		{"some log\nError: Session not found\n", true},
		{"\x1b[91m\x1b[1mError: \x1b[0mSession not found: ses_b\n", false},
		{"Error: Session not found in the notes, try again\n", false},
		{"\x1b[91m\x1b[1mError: \x1b[0mModel not found: fake/x\n", false},
		{"", false},
	} {
		if got := a.LoadFailed([]byte(c.stderr), "ses_a"); got != c.want {
			t.Errorf("%q: %v", c.stderr, got)
		}
	}
	if !a.Capabilities().Database || a.Capabilities().Trim {
		t.Errorf("capabilities: %+v", a.Capabilities())
	}
}

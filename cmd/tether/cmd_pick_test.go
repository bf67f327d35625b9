package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/picker"
	"github.com/tether-dev/tether/picker/snapshot"
	"github.com/tether-dev/tether/state"
)

func TestPickActRunsTheWrapper(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's a dir")
	os.MkdirAll(dir, 0o700)
	claude := catalog.Session{Harness: catalog.ClaudeCode, ID: "aaaa1111-0000-4000-8000-000000000001", Cwd: dir,
		Resume: catalog.ResumeSpec{Argv: []string{"claude", "--resume", "aaaa1111-0000-4000-8000-000000000001"}, Dir: dir}}
	codex := catalog.Session{Harness: catalog.Codex, ID: "bbbb", Cwd: dir,
		Resume: catalog.ResumeSpec{Argv: []string{"codex", "resume", "bbbb"}, Dir: dir, Env: map[string]string{"CODEX_HOME": "/home/example/.codex"}}}
	running := claude
	running.State, running.Runtime = catalog.StateRunning, &catalog.Runtime{PID: 7, TmuxTarget: "work:@2.%5"}
	self := "/opt/tether/bin/tether"
	cases := []struct {
		name   string
		r      picker.Result
		inTmux bool
		exec   string
		tmux   string
		out    string
		code   int
	}{
		{"resume claude", picker.Result{Kind: picker.Resume, Session: claude}, false,
			fmt.Sprintf("%s [%s run claude --resume %s] [PATH=/bin PWD=%s]", dir, self, claude.ID, dir), "", "", 0},
		{"resume codex with its env", picker.Result{Kind: picker.Resume, Session: codex}, false,
			fmt.Sprintf("%s [%s run codex resume bbbb] [PATH=/bin CODEX_HOME=/home/example/.codex PWD=%s]", dir, self, dir), "", "", 0},
		{"fork", picker.Result{Kind: picker.Fork, Session: claude}, false,
			fmt.Sprintf("%s [%s run claude --resume %s --fork-session] [PATH=/bin PWD=%s]", dir, self, claude.ID, dir), "", "", 0},
		{"print", picker.Result{Kind: picker.Print, Session: claude}, false, "", "",
			fmt.Sprintf("cd '%s' && %s run claude --resume %s\n", filepath.Dir(dir)+"/it'\\''s a dir", self, claude.ID), 0},
		{"tmux window", picker.Result{Kind: picker.TmuxWindow, Session: claude}, true, "",
			fmt.Sprintf("[new-window -n it's a dir -c %s -- %s run claude --resume %s]", dir, self, claude.ID), "", 0},
		{"attach inside tmux", picker.Result{Kind: picker.Attach, Session: running}, true, "",
			"[select-window -t work:@2.%5][select-pane -t work:@2.%5][switch-client -t work:@2.%5]", "", 0},
		{"cancel", picker.Result{Kind: picker.Cancel}, false, "", "", "", 130},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var gotExec, gotTmux string
			defer func(e func(string, []string, []string) error, x func(...string) error) { pickExec, pickTmux = e, x }(pickExec, pickTmux)
			pickExec = func(dir string, argv, env []string) error { gotExec = fmt.Sprint(dir, " ", argv, " ", env); return nil }
			pickTmux = func(args ...string) error { gotTmux += fmt.Sprint(args); return nil }
			var out bytes.Buffer
			opts := pickOptions{IO: &iostreams.IOStreams{Out: &out, ErrOut: &out}, Environ: []string{"PATH=/bin", "PWD=/home/example"},
				Picker: picker.Options{Self: self, InTmux: c.inTmux, Agents: hot.AgentsAt(locations.Locations{})}}
			err := pickAct(opts, c.r)
			if exitcode.Of(err) != c.code {
				t.Fatalf("exit %d (%v), want %d", exitcode.Of(err), err, c.code)
			}
			if gotExec != c.exec || gotTmux != c.tmux || out.String() != c.out {
				t.Errorf("exec %q\n want %q\ntmux %q\n want %q\nout %q\n want %q", gotExec, c.exec, gotTmux, c.tmux, out.String(), c.out)
			}
		})
	}
}

func TestPickRefusesAMissingDirectory(t *testing.T) {
	s := catalog.Session{Harness: catalog.ClaudeCode, ID: "x", Resume: catalog.ResumeSpec{Argv: []string{"claude", "--resume", "x"}, Dir: "/nonexistent/example"}}
	called := false
	defer func(e func(string, []string, []string) error) { pickExec = e }(pickExec)
	pickExec = func(string, []string, []string) error { called = true; return nil }
	err := pickAct(pickOptions{IO: &iostreams.IOStreams{}, Picker: picker.Options{Self: "/t"}}, picker.Result{Kind: picker.Resume, Session: s})
	if err == nil || called {
		t.Errorf("resumed into a missing directory: %v", err)
	}
}

// TestPickRestoresTheTerminalAfterAPanic runs the picker in a real
// terminal (tmux) with a background refresh that panics: the process ends
// with an error (status 1) and every stty mode is as it was before.
func TestPickRestoresTheTerminalAfterAPanic(t *testing.T) {
	if os.Getenv("TETHER_PICK_PANIC_CHILD") == "1" {
		ios := &iostreams.IOStreams{Out: os.Stdout, ErrOut: os.Stderr}
		err := runPick(context.Background(), pickOptions{IO: ios, Environ: os.Environ(), Picker: picker.Options{
			Self: "/opt/tether/bin/tether", Refresh: func() ([]catalog.Session, error) { panic("boom in the refresh") },
		}})
		os.Exit(exitcode.Of(err))
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
stty -a > "$1/before"
TETHER_PICK_PANIC_CHILD=1 "$2" -test.run '^TestPickRestoresTheTerminalAfterAPanic$' 2>"$1/stderr"
rc=$?
stty -a > "$1/after"
echo "rc=$rc" > "$1/rc"
`), 0o755)
	sock := fmt.Sprintf("tether-pick-panic-%d", os.Getpid())
	defer exec.Command("tmux", "-L", sock, "kill-server").Run()
	cmd := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "/bin/sh", script, dir, os.Args[0])
	cmd.Env = testutil.IsolatedEnv(dir, "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	var rc []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(rc) == 0; time.Sleep(100 * time.Millisecond) {
		rc, _ = os.ReadFile(filepath.Join(dir, "rc"))
	}
	before, _ := os.ReadFile(filepath.Join(dir, "before"))
	after, _ := os.ReadFile(filepath.Join(dir, "after"))
	stderr, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	if strings.TrimSpace(string(rc)) != "rc=1" {
		t.Errorf("status %q, want rc=1; stderr:\n%s", rc, stderr)
	}
	if len(before) == 0 || !bytes.Equal(before, after) {
		t.Errorf("terminal not restored after the panic:\nbefore %s\nafter  %s", before, after)
	}
	if !strings.Contains(string(stderr), "boom in the refresh") {
		t.Errorf("the panic was not reported:\n%s", stderr)
	}
}

// The headless first frame is drawn from the picker's snapshot (the
// catalog here is empty), and the collector, off while the picker starts,
// is put back as it was.
func TestPickHeadlessPaintsFromTheSnapshot(t *testing.T) {
	ta := newTestApp(t)
	snap := snapshot.Path(ta.Loc.CacheDir)
	s := catalog.Session{Harness: catalog.ClaudeCode, ID: "aaaa1111-0000-4000-8000-000000000001", Cwd: "/home/example/proj",
		Title: "from the snapshot", State: catalog.StateResumable, LastActivity: time.Now().Add(-time.Hour),
		Resume: catalog.ResumeSpec{Argv: []string{"claude", "--resume", "aaaa1111-0000-4000-8000-000000000001"}, Dir: "/home/example/proj"}}
	if err := snapshot.Save(snap, []catalog.Session{s}); err != nil {
		t.Fatal(err)
	}
	gc := debug.SetGCPercent(77)
	limit := debug.SetMemoryLimit(123 << 20)
	defer debug.SetGCPercent(gc)
	defer debug.SetMemoryLimit(limit)
	if code := ta.run("pick", "--headless"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if !strings.Contains(ta.out.String(), "from the snapshot") || !strings.Contains(ta.out.String(), "1/1") {
		t.Errorf("the frame is not the snapshot's:\n%s", ta.out)
	}
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		if g, l := debug.SetGCPercent(gc), debug.SetMemoryLimit(limit); g != 77 || l != 123<<20 {
			t.Errorf("collector left at GOGC %d, limit %d", g, l)
		}
	}
	// A damaged snapshot is not read: the catalog is listed (nothing in
	// it) and the snapshot written afresh.
	data, _ := os.ReadFile(snap)
	data[len(data)-1] ^= 1
	os.WriteFile(snap, data, 0o600)
	ta.out.Reset()
	if code := ta.run("pick", "--headless"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	if strings.Contains(ta.out.String(), "from the snapshot") || !strings.Contains(ta.out.String(), "no sessions found") {
		t.Errorf("a damaged snapshot was painted from:\n%s", ta.out)
	}
	if fresh, err := os.ReadFile(snap); err != nil || bytes.Equal(fresh, data) {
		t.Errorf("the snapshot was not rewritten: %v", err)
	}
}

// started calls its function once the model's background work is done,
// without waiting for it itself; nil is no call.
func TestPickStartedCallsBack(t *testing.T) {
	m := picker.New(picker.Options{Sessions: []catalog.Session{{Harness: catalog.Codex, ID: "x", Title: "t"}}})
	done := make(chan struct{})
	started(m, func() { close(done) })
	started(m, nil)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("started never called back")
	}
}

// The picker's listing and its full-read preview carry tether's stale
// marks, as list and show do: a session whose resume failed is not
// offered as resumable.
func TestPickShowsStaleSessions(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	transcript := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-proj", claudeOld+".jsonl")
	state.MarkStale(ta.Loc.StateDir, claudeOld, transcript, "prompt too long", time.Date(2026, 11, 29, 9, 30, 0, 0, time.Local))
	if code := ta.run("pick", "--headless"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	// What the picker listed (it saved it as the next first paint).
	listed, _ := snapshot.Load(snapshot.Path(ta.Loc.CacheDir))
	marked := 0
	for _, s := range listed {
		if s.Stale != nil {
			marked++
			if s.ID != claudeOld || s.Stale.Reason != "prompt too long" {
				t.Errorf("stale mark on %s: %+v", s.ID, s.Stale)
			}
		}
	}
	if len(listed) == 0 || marked != 1 {
		t.Errorf("the picker's listing (%d sessions) has %d stale, want %s", len(listed), marked, claudeOld)
	}
	if !strings.Contains(ta.out.String(), "state:         stale (prompt too long") {
		t.Errorf("the first frame's preview does not say stale:\n%s", ta.out)
	}
	c, err := ta.catalogFor("")
	if err != nil {
		t.Fatal(err)
	}
	ss, _, _ := c.List(context.Background(), catalog.ListOptions{})
	for _, s := range ss {
		if s.ID != claudeOld {
			continue
		}
		text, err := ta.sessionPreview(context.Background(), c, s, nil)
		if err != nil || !strings.Contains(text, "stale (prompt too long, on 2026-11-29 09:30)") || !strings.Contains(text, "fix:") {
			t.Errorf("full-read preview (%v):\n%s", err, text)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/wrap"
)

func TestMultiCall(t *testing.T) {
	cases := map[string][]string{
		"/home/example/.local/share/tether/shims/claude": {"tether", "run", "claude", "-r", "x"},
		"codex":                 {"tether", "run", "codex", "-r", "x"},
		"/usr/local/bin/tether": {"/usr/local/bin/tether", "-r", "x"},
	}
	for argv0, want := range cases {
		if got := hot.MultiCall([]string{argv0, "-r", "x"}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q", argv0, got)
		}
	}
}

func TestRunPassesEverythingThrough(t *testing.T) {
	ta := newTestApp(t)
	fake := filepath.Join(ta.home, "bin", "claude")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	ta.env["TETHER_CLAUDE_BIN"] = fake
	var got wrap.Child
	ta.exec = func(c wrap.Child) (int, error) { got = c; return 3, nil }
	// --help and other flags after the program name belong to claude.
	code := ta.run("run", "--self-report", "claude", "--help", "-p", "x")
	if code != 3 {
		t.Errorf("exit %d, want the child's 3 (stderr %q)", code, ta.err)
	}
	if got.Path != fake || len(got.Args) != 5 || got.Args[0] != "--help" || got.Args[3] != "--append-system-prompt" {
		t.Errorf("child %+v", got)
	}
	if ta.err.Len() != 0 || ta.out.Len() != 0 {
		t.Errorf("tether wrote output: %q %q", ta.out, ta.err)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{{"run"}, {"run", "vim"}, {"run", "--bogus", "claude"}, {"run", "--self-report", "codex"}} {
		ta := newTestApp(t)
		ta.env["TETHER_CODEX_BIN"] = "/bin/true"
		if code := ta.run(args...); code != 2 || !strings.HasPrefix(ta.err.String(), "tether: ") {
			t.Errorf("%q: exit %d stderr %q", args, code, ta.err)
		}
	}
	ta := newTestApp(t)
	ta.env["PATH"] = ta.home
	if code := ta.run("run", "claude"); code != 3 || !strings.Contains(ta.err.String(), "not on PATH") {
		t.Errorf("missing binary: exit %d stderr %q", code, ta.err)
	}
}

func TestRunExitLine(t *testing.T) {
	ta := newTestApp(t)
	fake := filepath.Join(ta.home, "bin", "claude")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755)
	ta.env["TETHER_CLAUDE_BIN"] = fake
	ta.IO.StderrTTY = true
	const id = "d9f7843f-07d6-4b50-9048-40676f77f965"
	ta.exec = func(c wrap.Child) (int, error) {
		// What the Stop hook records during the run.
		return 0, state.Save(ta.Loc.StateDir, state.Session{SessionID: id, IdentityRoot: ta.Root().Path,
			Tokens: 84000, Window: 200000, Percent: 42, UsageKnown: true, Updated: time.Now()})
	}
	if code := ta.run("run", "claude"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	// Claude prints its own "Resume this session with" line: no repeat.
	want := "tether: session d9f7843f · ctx 42%\n"
	if ta.err.String() != want {
		t.Errorf("exit line %q, want %q", ta.err.String(), want)
	}
	// Off when stderr is not a terminal, or when turned off.
	for _, setup := range []func(){func() { ta.IO.StderrTTY = false }, func() { ta.IO.StderrTTY = true; ta.env["TETHER_EXIT_LINE"] = "0" }} {
		setup()
		ta.err.Reset()
		ta.run("run", "claude")
		if ta.err.Len() != 0 {
			t.Errorf("exit line printed: %q", ta.err.String())
		}
	}
}

// TestRunHelp: --help (or -h) before the program name is tether's: run's
// help on stdout, exit 0, nothing started (issue 23: it exited 2 telling
// the user to run 'tether run --help'). After the program name it stays
// claude's (TestRunPassesEverythingThrough).
func TestRunHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"run", "-h"}, {"run", "--force", "--help"}} {
		ta := newTestApp(t)
		ta.exec = func(c wrap.Child) (int, error) { t.Errorf("%q started %+v", args, c); return 0, nil }
		if code := ta.run(args...); code != 0 || ta.err.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, ta.err)
		}
		if out := ta.out.String(); !strings.Contains(out, "tether run - run the real claude, codex or opencode") || !strings.Contains(out, "--self-report") {
			t.Errorf("%q: not run's help: %q", args, out)
		}
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestEveryCommandHasExamples: every command a user can see shows examples
// in its --help.
func TestEveryCommandHasExamples(t *testing.T) {
	ta := newTestApp(t)
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		if c.Hidden {
			return
		}
		if !strings.Contains(c.Description, "Examples:\n") {
			t.Errorf("%s --help has no examples", path)
		}
		for _, sub := range c.Commands {
			walk(sub, path+" "+sub.Name)
		}
	}
	walk(ta.Command(), "tether")
}

// TestSuggestions: an unknown command or flag names the closest one.
func TestSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sesions"}, `did you mean "sessions"?`},
		{[]string{"doctr"}, `did you mean "doctor"?`},
		{[]string{"sessions", "lst"}, `did you mean "list"?`},
		{[]string{"sessions", "lsit"}, `did you mean "list"?`}, // two letters swapped: one typo
		{[]string{"sessions", "--harnes", "codex"}, `did you mean "--harness"?`},
		{[]string{"log", "--folow"}, `did you mean "--follow"?`},
		{[]string{"hooks", "instal"}, `did you mean "install"?`},
	} {
		ta := newTestApp(t)
		if code := ta.run(c.args...); code != 2 || !strings.Contains(ta.err.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, ta.err.String(), c.want)
		}
		if n := strings.Count(ta.err.String(), "\n"); n != 1 {
			t.Errorf("%v: %d lines on stderr: %q", c.args, n, ta.err.String())
		}
	}
	ta := newTestApp(t)
	if code := ta.run("xyzzyq"); code != 2 || strings.Contains(ta.err.String(), "did you mean") {
		t.Errorf("nothing close: exit %d, %q", code, ta.err.String())
	}
}

// TestHelpCommandNamesANestedCommand: 'tether help A B' is B's help, as
// 'tether A B --help' is (issue 23: it printed A's).
func TestHelpCommandNamesANestedCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "sessions", "show"}, "tether sessions show - show one session in full"},
		{[]string{"help", "sessions", "cache", "clear"}, "tether sessions cache clear - "},
		{[]string{"help", "sessions"}, "tether sessions - list, show, search and resume"},
		{[]string{"help", "trim"}, "tether trim - "},
		{[]string{"sessions", "help", "show"}, "tether sessions show - show one session in full"},
	} {
		ta := newTestApp(t)
		if code := ta.run(c.args...); code != 0 || !strings.Contains(ta.out.String(), c.want) {
			t.Errorf("%q: exit %d, want %q in:\n%s%s", c.args, code, c.want, ta.out, ta.err)
		}
		ta2 := newTestApp(t)
		ta2.run(append(c.args[1:len(c.args):len(c.args)], "--help")...)
		if c.args[0] == "help" && ta.out.String() != ta2.out.String() {
			t.Errorf("%q differs from %q --help", c.args, c.args[1:])
		}
	}
	ta := newTestApp(t)
	if code := ta.run("help", "sessions", "shw"); code != 2 || !strings.Contains(ta.err.String(), `did you mean "show"?`) {
		t.Errorf("help of an unknown command: exit %d, stderr %q", code, ta.err)
	}
}

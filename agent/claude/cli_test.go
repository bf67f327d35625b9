package claude

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseResume(t *testing.T) {
	cases := []struct {
		args        []string
		kind, id    string
		fork, print bool
		fresh       []string
	}{
		{[]string{"-p", "hi"}, "", "", false, true, []string{"-p", "hi"}},
		{[]string{"--resume", "abc", "-p", "go on"}, "id", "abc", false, true, []string{"-p", "go on"}},
		{[]string{"-r", "abc", "--fork-session"}, "id", "abc", true, false, []string{}},
		{[]string{"--resume=abc", "--model", "x"}, "id", "abc", false, false, []string{"--model", "x"}},
		{[]string{"--resume", "--verbose"}, "picker", "", false, false, []string{"--verbose"}},
		{[]string{"-c", "-p", "x"}, "continue", "", false, true, []string{"-p", "x"}},
		{[]string{"-p", "--", "--resume", "x"}, "", "", false, true, []string{"-p", "--", "--resume", "x"}},
	}
	for _, c := range cases {
		r := New("").ParseResume(c.args)
		if r.Kind != c.kind || r.ID != c.id || r.Fork != c.fork || r.Print != c.print || !reflect.DeepEqual(r.Fresh, c.fresh) {
			t.Errorf("%q: got %+v fresh %q", c.args, r, r.Fresh)
		}
	}
}

// TestResumeWithID: an id (a prefix the wrapper expanded) is replaced in
// the spelling it was given in, and nothing else changes.
func TestResumeWithID(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"-p", "--resume", "abc", "go on"}, []string{"-p", "--resume", "full-id", "go on"}},
		{[]string{"--resume=abc", "--model", "x"}, []string{"--resume=full-id", "--model", "x"}},
	} {
		in := append([]string(nil), c.in...)
		if got := New("").ParseResume(c.in).WithID(c.in, "full-id"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("WithID(%q) = %q, want %q", c.in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("input modified: %q", c.in)
		}
	}
}

// TestOneDocument: only `-p --output-format json` prints one JSON
// document for the whole run.
func TestOneDocument(t *testing.T) {
	for args, want := range map[string]bool{
		"-p --output-format json --resume x":       true,
		"--print --output-format=json":             true,
		"-p --output-format stream-json":           false,
		"--output-format json --resume x":          false,
		"-p -- --output-format json":               false,
		"-p --resume x --output-format":            false,
		"-p --output-format text --resume x hello": false,
	} {
		if got := New("").ParseResume(strings.Fields(args)).OneDocument; got != want {
			t.Errorf("%s: OneDocument %v, want %v", args, got, want)
		}
	}
}

func TestAppendSystemPrompt(t *testing.T) {
	const x = "X"
	cases := []struct{ in, want []string }{
		{[]string{"-p", "hi"}, []string{"-p", "hi", "--append-system-prompt", x}},
		{[]string{"--append-system-prompt", "mine", "-p"}, []string{"--append-system-prompt", "mine\n\nX", "-p"}},
		{[]string{"--append-system-prompt=mine"}, []string{"--append-system-prompt=mine\n\nX"}},
		{[]string{"-p", "--", "--weird"}, []string{"-p", "--append-system-prompt", x, "--", "--weird"}},
	}
	for _, c := range cases {
		in := append([]string(nil), c.in...)
		if got := New("").AppendSystemPrompt(c.in, x); !reflect.DeepEqual(got, c.want) {
			t.Errorf("AppendSystemPrompt(%q) = %q, want %q", c.in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("input modified: %q", c.in)
		}
	}
}

package shquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                "''",
		"/home/example/x": "/home/example/x",
		"a b":             "'a b'",
		"it's":            `'it'\''s'`,
		"$(touch x)":      "'$(touch x)'",
		"a\nb":            "'a\nb'",
		"=ls":             "'=ls'",
		"a=b":             "a=b",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuoteRoundTrip hands hostile words to a real shell and checks they
// come back unchanged and run nothing.
func TestQuoteRoundTrip(t *testing.T) {
	words := []string{"", "plain", "sp ace", "it's", `"dq"`, "$HOME", "$(echo pwned)", "`echo pwned`", "*", "a\nb", "~", "-n", "=ls", `back\slash`, "é😀"}
	for _, sh := range []string{"sh", "bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		for _, w := range words {
			out, err := exec.Command(sh, "-c", "printf '%s' "+Quote(w)).Output()
			if err != nil || string(out) != w {
				t.Errorf("%s: %q came back as %q (%v)", sh, w, out, err)
			}
		}
	}
	if got := Join([]string{"cd", "a b"}); got != "cd 'a b'" {
		t.Errorf("Join: %q", got)
	}
}

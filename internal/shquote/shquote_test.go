package shquote

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/termsafe"
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

// Issue 13 item 8: shell code printed for a directory holding terminal
// controls shows none of them raw and still cds into that directory in
// bash and zsh.
func TestPrintableHostileDirs(t *testing.T) {
	base := t.TempDir()
	names := []string{"\x1b]0;pwned\x07", "\x1b]52;c;cHduZWQ=\x07", "\x1b[2J", "c1\x9bbyte", "rlo\u202eevil", "it's \\ \"q\" $(x) \n\t", "é日本"}
	for _, sh := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s not installed", sh)
			continue
		}
		for _, n := range names {
			dir := filepath.Join(base, n)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			q := Printable(dir)
			// Newlines and tabs may stay (they drive no terminal).
			if !termsafe.Safe(strings.NewReplacer("\n", "", "\t", "").Replace(q)) {
				t.Errorf("Printable(%q) = %q holds raw controls", dir, q)
			}
			out, err := exec.Command(sh, "-c", "cd "+q+" && printf '%s' \"$PWD\"").Output()
			if err != nil || string(out) != dir {
				t.Errorf("%s: cd %s landed in %q, want %q (%v)", sh, q, out, dir, err)
			}
		}
	}
	if got := JoinPrintable([]string{"claude", "--resume", "a b"}); got != "claude --resume 'a b'" {
		t.Errorf("JoinPrintable: %q", got)
	}
}

package hot

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// The hand-written parsers accept exactly the spellings they can answer as
// urfave/cli would, and leave everything else (help, unknown flags) to the
// full tether.
func TestParsePromptFlags(t *testing.T) {
	f, ok := ParsePromptFlags([]string{"--shell", "bash", "--stamp-id=42", "-color", "never", "--timeout", "20ms", "--format={pct}"})
	want := PromptFlags{Format: "{pct}", Color: "never", Shell: "bash", StampID: "42", Timeout: 20 * time.Millisecond}
	if !ok || f != want {
		t.Errorf("got %+v %v, want %+v", f, ok, want)
	}
	if f, ok := ParsePromptFlags(nil); !ok || f != DefaultPromptFlags() {
		t.Errorf("no flags: %+v %v", f, ok)
	}
	for _, args := range [][]string{{"--help"}, {"--shell"}, {"--timeout", "soon"}, {"extra"}, {"--bogus", "1"}} {
		if _, ok := ParsePromptFlags(args); ok {
			t.Errorf("%q accepted; the full tether must answer it", args)
		}
	}
}

func TestParseCompleteArgs(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		shell string
		words []string
		ok    bool
	}{
		{[]string{"--shell", "zsh", "--", "claude", "--resume", ""}, "zsh", []string{"claude", "--resume", ""}, true},
		{[]string{"--shell=fish", "codex", "resume", "ab"}, "fish", []string{"codex", "resume", "ab"}, true},
		{[]string{"--line", "claude -r 'a b"}, "bash", []string{"claude", "-r", "a b"}, true},
		{[]string{"--refresh-index"}, "", nil, false},
		{[]string{"--shell", "tcsh", "--", "claude"}, "", nil, false},
		{[]string{"--help"}, "", nil, false},
	} {
		shell, words, ok := ParseCompleteArgs(tc.args)
		if ok != tc.ok || (ok && (shell != tc.shell || !reflect.DeepEqual(words, tc.words))) {
			t.Errorf("%q: got %q %q %v", tc.args, shell, words, ok)
		}
	}
}

func TestSibling(t *testing.T) {
	dir := t.TempDir()
	tether := filepath.Join(dir, "tether")
	if got := Sibling(tether); got != tether {
		t.Errorf("no tether-hot: %q", got)
	}
	if got := Sibling("tether"); got != "tether" {
		t.Errorf("relative: %q", got)
	}
	os.WriteFile(filepath.Join(dir, Name), []byte("x"), 0o644)
	if got := Sibling(tether); got != tether {
		t.Errorf("not executable: %q", got)
	}
	os.Chmod(filepath.Join(dir, Name), 0o755)
	if got := Sibling(tether); got != filepath.Join(dir, Name) {
		t.Errorf("with tether-hot: %q", got)
	}
}

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/shellinit"
)

// TestZshProbeFreshRC: a .zshrc holding nothing but tether's init script
// (no compinit) ends up with tether's completion registered for claude,
// and the doctor's probe, which asks a real zsh, sees it.
func TestZshProbeFreshRC(t *testing.T) {
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh not installed")
	}
	sh, _ := shellinit.ByName("zsh")
	script, err := shellinit.Render(sh, shellinit.Options{Bin: "/bin/false", Completion: true})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("ZDOTDIR", home)
	os.WriteFile(filepath.Join(home, "init.zsh"), []byte(script), 0o600)
	os.WriteFile(filepath.Join(home, ".zshrc"), []byte("source $ZDOTDIR/init.zsh\n"), 0o600)
	fn, err := probeZshCompletion(context.Background())
	if err != nil || fn != "__tether_complete" {
		t.Fatalf("fresh .zshrc: claude completed by %q (%v), want __tether_complete", fn, err)
	}
	// The user's own compinit after the init line runs once, not twice:
	// tether's deferred registration uses it.
	os.WriteFile(filepath.Join(home, ".zshrc"), []byte("source $ZDOTDIR/init.zsh\nautoload -Uz compinit && compinit -i\n"+
		"function compinit { : > $ZDOTDIR/second-compinit }\n"), 0o600)
	if fn, err := probeZshCompletion(context.Background()); err != nil || fn != "__tether_complete" {
		t.Errorf("compinit after the init line: %q %v", fn, err)
	}
	if _, err := os.Stat(filepath.Join(home, "second-compinit")); err == nil {
		t.Error("tether ran compinit again after the user's")
	}
	// compinit before the init line and again after it (a common .zshrc
	// mistake): the second one rebuilds _comps; tether registers again.
	os.WriteFile(filepath.Join(home, ".zshrc"), []byte("autoload -Uz compinit && compinit -i\nsource $ZDOTDIR/init.zsh\ncompinit -i\n"), 0o600)
	if fn, err := probeZshCompletion(context.Background()); err != nil || fn != "__tether_complete" {
		t.Errorf("compinit again after the init line: %q %v", fn, err)
	}
}

func TestZshCompletionCheckReportsWhatZshSays(t *testing.T) {
	for fn, want := range map[string]string{
		"__tether_complete": "ok completion zsh: TAB after claude runs tether's completion",
		"":                  "fail completion zsh: nothing completes claude",
		"_prev_claude":      "fail completion zsh: claude is completed by _prev_claude",
	} {
		var got string
		zshCompletionCheck(func() (string, error) { return fn, nil }, func(status, name string, _ func() error, format string, args ...any) {
			got = status + " " + name + " " + format
			if len(args) > 0 {
				got = status + " " + name + " " + strings.Replace(format, "%s", args[0].(string), 1)
			}
		})
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q: %q, want %q…", fn, got, want)
		}
	}
}

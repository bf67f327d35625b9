package main

import (
	"strings"
	"testing"
)

func TestInitCommand(t *testing.T) {
	ta := newTestApp(t)
	if code := ta.run("init", "zsh", "--no-wrap", "--cmd", "tether"); code != 0 {
		t.Fatalf("code %d err %q", code, ta.err)
	}
	out := ta.out.String()
	if !strings.Contains(out, "__tether_bin='tether'") || strings.Contains(out, "function claude") ||
		!strings.HasSuffix(out, "eval \"$(tether init zsh --no-wrap)\"\n") {
		t.Errorf("unexpected script:\n%s", out)
	}
	for _, bad := range [][]string{{"init"}, {"init", "tcsh"}, {"init", "bash", "zsh"}} {
		if code := ta.run(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}

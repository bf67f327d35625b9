//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// ttyProbe stands in for claude: it reports what it inherited (a terminal
// on all three streams, the window size, colour support) and counts the
// SIGINTs it receives, so the test can show the wrapper is invisible to it.
const ttyProbe = `#!/bin/sh
n=0
trap 'n=$((n+1))' INT
for fd in 0 1 2; do if [ -t $fd ]; then printf 'fd%s=tty ' $fd; else printf 'fd%s=notty ' $fd; fi; done
printf 'size=%s colors=%s root=%s\n' "$(stty size)" "$(tput colors 2>/dev/null)" "$TETHER_IDENTITY_ROOT"
printf 'ready> '
while [ "$n" -eq 0 ]; do sleep 0.05; done
sleep 0.5
printf '\nints=%s\n' "$n"
exit 42
`

// TestWrapKeepsTheTerminal runs tether run claude in a real terminal: the
// child sees a terminal on stdin, stdout and stderr with the window's size,
// one Ctrl-C reaches it exactly once, and its exit status is the wrapper's.
func TestWrapKeepsTheTerminal(t *testing.T) {
	harness.RequireTmux(t)
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	env := harness.NewEnv(t, api)
	probe := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(probe, []byte(ttyProbe), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Setenv("TETHER_CLAUDE_BIN", probe)
	dir := env.ProjectDir("tty")
	tm := env.StartTmux(dir, harness.Tether(t), "run", "claude", "--resume")
	screen := tm.WaitFor("ready>", 15*time.Second)
	if !strings.Contains(screen, "fd0=tty fd1=tty fd2=tty") {
		t.Errorf("the child lost its terminal:\n%s", screen)
	}
	if !strings.Contains(screen, "size=40 120") {
		t.Errorf("the child does not see the window size 40x120:\n%s", screen)
	}
	if strings.Contains(screen, "colors= ") || strings.Contains(screen, "colors=-1") {
		t.Errorf("the child sees no colour support:\n%s", screen)
	}
	if !strings.Contains(screen, "root="+dir) {
		t.Errorf("TETHER_IDENTITY_ROOT not exported to the child:\n%s", screen)
	}
	tm.SendKeys("C-c")
	screen = tm.WaitFor("ints=", 10*time.Second)
	if !strings.Contains(screen, "ints=1") {
		t.Errorf("Ctrl-C should reach the child exactly once:\n%s", screen)
	}
	if status := tm.WaitExit(10 * time.Second); status != 42 && status != harness.StatusUnknown {
		t.Errorf("wrapper exit status %d, want the child's 42", status)
	}
	if strings.Contains(tm.Capture(), "tether:") {
		t.Errorf("the wrapper printed something:\n%s", tm.Capture())
	}
}

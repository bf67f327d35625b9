package harness

import (
	"strings"
	"testing"
	"time"
)

// TestTmux drives a tiny interactive program (a shell reading a line) the
// way the e2e scenarios drive the CLIs' TUIs.
func TestTmux(t *testing.T) {
	RequireTmux(t)
	e := newEnv(t)
	e.Setenv("TETHER_TMUX_TEST", "from-env")
	dir := e.ProjectDir("tmux")
	tm := e.StartTmux(dir, "/bin/sh", "-c", `printf 'ready %s> ' "$TETHER_TMUX_TEST"; read -r line; echo "got [$line] in $(pwd)"; read -r _; exit 7`)
	tm.WaitFor("ready from-env>", 10*time.Second)
	tm.SendText("hello world")
	tm.SendKeys("Enter")
	screen := tm.WaitFor("got [hello world] in "+dir, 10*time.Second)
	if !strings.Contains(screen, "ready from-env> hello world") {
		t.Errorf("screen lacks the echoed input:\n%s", screen)
	}
	if dead, _ := tm.Exited(); dead {
		t.Fatalf("program exited early; screen:\n%s", tm.Capture())
	}
	if _, ok := tm.WaitUntil(func(s string) bool { return strings.Contains(s, "never shown") }, 300*time.Millisecond); ok {
		t.Error("WaitUntil reported text that is not on screen")
	}
	tm.SendKeys("Enter")
	if status := tm.WaitExit(10 * time.Second); status != 7 && status != StatusUnknown {
		t.Errorf("exit status %d, want 7", status)
	}
	// remain-on-exit keeps the last screen readable.
	if s := tm.Capture(); !strings.Contains(s, "got [hello world]") {
		t.Errorf("last screen lost after exit:\n%s", s)
	}
	socket := tm.Socket
	tm.Kill()
	tm.Kill() // harmless twice
	if out, err := (&Tmux{env: e, Socket: socket, Session: "e2e"}).tmux("list-sessions"); err == nil {
		t.Errorf("tmux server %s still running after Kill: %s", socket, out)
	}
}

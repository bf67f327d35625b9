package catalog

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExecTmuxWithoutClient: inside tmux (TMUX set) with no client
// attached to the server, Attach says so instead of running a
// switch-client that fails with "no current client".
func TestExecTmuxWithoutClient(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	sock := filepath.Join(t.TempDir(), "s")
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-s", "work", "sleep 60").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	t.Setenv("TMUX", sock+",1,0")
	tm := ExecTmux{Inside: true}
	if !tm.HasSession("work") {
		t.Fatal("the test server is not the one TMUX names")
	}
	if tm.CanAttach() {
		t.Error("CanAttach with no client attached")
	}
	if err := tm.Attach("work"); !errors.Is(err, ErrNoTmuxClient) {
		t.Errorf("Attach: %v", err)
	}
}

package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartFakeClaude runs a process titled claude (a symlink to sleep, as
// Claude Code 2.0.x leaves no sessions/<pid>.json and overwrites its argv)
// in dir with CLAUDE_CONFIG_DIR=configDir, holding open any files given.
// It returns once the process shows its argv in /proc: exec.Cmd.Start
// returns when the kernel releases the parent's memory, before the new
// image's argv is in place, so /proc/<pid>/cmdline reads empty for a
// moment and a scan in that moment finds no Claude Code at all.
func StartFakeClaude(t *testing.T, dir, configDir string, open ...*os.File) int {
	t.Helper()
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.Symlink(sleep, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "60")
	cmd.Dir, cmd.Env, cmd.ExtraFiles = dir, []string{"CLAUDE_CONFIG_DIR=" + configDir}, open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	cmdline := filepath.Join("/proc", strconv.Itoa(pid), "cmdline")
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		if b, _ := os.ReadFile(cmdline); len(b) > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never showed its argv in /proc", pid)
		}
	}
}

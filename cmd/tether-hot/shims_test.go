package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoInstallsShimsRunTheAgentOnce (issue 23, item 17): a PATH holding
// two installs' shim directories (each a claude link to its own copy of
// tether-hot, neither the data dir's) made each wrapper take the other's
// shim for the real claude: an unbounded chain of wrappers. The wrapper
// runs the real agent exactly once and logs one spawn, whether the shims
// are install.sh's links or scripts of the user's own (which only the
// wrapper's environment mark can tell apart from the real claude).
func TestTwoInstallsShimsRunTheAgentOnce(t *testing.T) {
	dir, hot := buildHot(t)
	for _, kind := range []string{"links", "scripts"} {
		t.Run(kind, func(t *testing.T) { twoInstalls(t, filepath.Join(dir, kind), hot, kind == "scripts") })
	}
}

func twoInstalls(t *testing.T, dir, hot string, scripts bool) {
	var shimDirs []string
	for _, inst := range []string{"a", "b"} {
		bin := filepath.Join(dir, inst, "bin")
		shims := filepath.Join(dir, inst, "shims")
		os.MkdirAll(bin, 0o755)
		os.MkdirAll(shims, 0o755)
		data, err := os.ReadFile(hot)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(bin, "tether-hot"), data, 0o755) // installed by copy
		if scripts {
			os.WriteFile(filepath.Join(shims, "claude"), []byte("#!/bin/sh\nexec '"+filepath.Join(bin, "tether-hot")+"' run claude \"$@\"\n"), 0o755)
		} else {
			os.Symlink(filepath.Join(bin, "tether-hot"), filepath.Join(shims, "claude"))
		}
		shimDirs = append(shimDirs, shims)
	}
	realDir := filepath.Join(dir, "real")
	os.MkdirAll(realDir, 0o755)
	count := filepath.Join(dir, "runs")
	os.WriteFile(filepath.Join(realDir, "claude"), []byte("#!/bin/sh\necho run >> '"+count+"'\n"), 0o755)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(shimDirs[0], "claude"), "-p", "hi")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A chain of wrappers is ended as a whole, not only its first.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	home := filepath.Join(dir, "home")
	cmd.Env = []string{"PATH=" + strings.Join(append(shimDirs, realDir, "/usr/bin", "/bin"), ":"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude")}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	runs, _ := os.ReadFile(count)
	log, _ := os.ReadFile(filepath.Join(home, "state", "tether", "events.jsonl"))
	spawns := strings.Count(string(log), `"event":"spawn"`)
	if err != nil || ctx.Err() != nil || strings.Count(string(runs), "run") != 1 || spawns != 1 {
		t.Fatalf("exit %v (timed out: %v); the real claude ran %d times, %d spawns logged\n%s",
			err, ctx.Err() != nil, strings.Count(string(runs), "run"), spawns, out)
	}
}

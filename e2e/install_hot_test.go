//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// TestInstallHotBinary: install.sh puts tether-hot next to tether with the
// same version; the shims, the scripts of tether init and the hooks tether
// writes run it; doctor checks it; --uninstall removes it and the shims.
func TestInstallHotBinary(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	bin := filepath.Join(home, ".local", "bin")
	env := []string{"HOME=" + home, "PATH=" + bin + ":" + os.Getenv("PATH"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run(filepath.Join(root, "install.sh"), "--no-run", "--shims")
	tether, hot := filepath.Join(bin, "tether"), filepath.Join(bin, "tether-hot")

	tv := strings.TrimPrefix(strings.TrimSpace(run(tether, "--version")), "tether version ")
	if hv := strings.TrimSpace(run(hot, "--version")); hv != "tether-hot version "+tv {
		t.Errorf("tether-hot --version = %q, tether's version is %q", hv, tv)
	}
	shims := filepath.Join(home, "data", "tether", "shims")
	for _, name := range []string{"claude", "codex", "opencode"} {
		if dest, err := os.Readlink(filepath.Join(shims, name)); err != nil || dest != hot {
			t.Errorf("shim %s -> %q (%v), want %s", name, dest, err, hot)
		}
	}
	if script := run(tether, "init", "bash"); !strings.Contains(script, "__tether_bin='"+hot+"'\n") {
		t.Errorf("tether init bash does not run %s:\n%.300s", hot, script)
	}
	run(tether, "hooks", "install", "--claude-version", "2.1.0", "--statusline")
	settings, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if !strings.Contains(string(settings), `"command": "`+hot+` hook"`) || !strings.Contains(string(settings), `"command": "`+hot+` statusline"`) {
		t.Errorf("hooks do not run tether-hot:\n%s", settings)
	}
	// A help request tether-hot does not answer itself goes to tether.
	if out := run(hot, "sessions", "--help"); !strings.Contains(out, "tether sessions") {
		t.Errorf("tether-hot sessions --help:\n%s", out)
	}
	doctor := exec.Command(tether, "doctor")
	doctor.Env, doctor.Dir = env, home
	out, _ := doctor.CombinedOutput()
	if !strings.Contains(string(out), "ok    tether-hot "+hot) {
		t.Errorf("doctor:\n%s", out)
	}

	run(filepath.Join(root, "install.sh"), "--uninstall")
	for _, p := range []string{tether, hot, filepath.Join(shims, "claude"), filepath.Join(shims, "codex"), filepath.Join(shims, "opencode")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("--uninstall left %s", p)
		}
	}
}

//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
)

// TestInstallShell: install.sh --shell adds the init line once, after a
// backup, keeping the file's mode and content; a shell started afterwards
// has the integration; --uninstall --shell removes exactly that line.
func TestInstallShell(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":" + os.Getenv("PATH"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	install := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "install.sh"), append([]string{"--no-run"}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("install.sh %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	rc := filepath.Join(home, ".bashrc")
	orig := "alias ll='ls -l'\nexport FOO=1\n"
	os.WriteFile(rc, []byte(orig), 0o640)

	install("--shell", "bash")
	if out := install("--shell", "bash"); !strings.Contains(out, "already loads tether") {
		t.Errorf("second run: %s", out)
	}
	data, _ := os.ReadFile(rc)
	if !strings.HasPrefix(string(data), orig) || strings.Count(string(data), "tether init bash") != 1 {
		t.Fatalf(".bashrc after two runs:\n%s", data)
	}
	if st, _ := os.Stat(rc); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(rc + ".tether-backup"); string(b) != orig {
		t.Errorf("backup: %q", b)
	}
	sh := exec.Command("bash", "--noprofile", "--rcfile", rc, "-ic", `printf '%s|%s' "$(type -t claude)" "$TETHER_SHELL"`)
	sh.Env = env
	out, err := sh.Output()
	if err != nil || !strings.HasSuffix(string(out), "function|bash") {
		t.Errorf("a new shell: %q %v", out, err)
	}

	install("--uninstall", "--shell", "bash")
	if data, _ := os.ReadFile(rc); string(data) != orig {
		t.Errorf(".bashrc after --uninstall --shell:\n%q\nwant\n%q", data, orig)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "tether")); err != nil {
		t.Errorf("--uninstall --shell removed the binary: %v", err)
	}
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestInstallFirstTime: a first install into an empty HOME (no .bashrc, no
// sessions) mentions no backup it did not make and ends with one friendly
// line, not an empty table.
func TestInstallFirstTime(t *testing.T) {
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "install.sh"), "--shell", "bash")
	cmd.Env = []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":" + os.Getenv("PATH"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "backup") {
		t.Errorf("mentions a backup of a .bashrc that did not exist:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(home, ".bashrc.tether-backup")); err == nil {
		t.Error("a backup file exists for a new .bashrc")
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := lines[len(lines)-1]
	if strings.Contains(text, "HARNESS") || strings.Contains(text, "no sessions found") ||
		!strings.HasPrefix(last, "tether: no Claude Code or Codex sessions yet") {
		t.Errorf("the install does not end with one friendly line:\n%s", text)
	}
}

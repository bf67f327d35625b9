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

// TestInstallShell: install.sh --shell adds the init line once, after a
// backup, keeping the file's mode and content; a shell started afterwards
// has the integration; --uninstall --shell removes exactly that line.
func TestInstallShell(t *testing.T) {
	root, err := testutil.ModuleRoot()
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

// TestInstallShellSymlinkedRC (issue 13 item 3): a dotfile manager's
// symlinked rc file is edited at its target (temp file and backup next to
// it) and stays a link, on install and on uninstall.
func TestInstallShellSymlinkedRC(t *testing.T) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + filepath.Join(home, ".local", "bin") + ":" + os.Getenv("PATH"),
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	dots := filepath.Join(home, "dotfiles")
	os.MkdirAll(dots, 0o755)
	target := filepath.Join(dots, "zshrc")
	orig := "setopt autocd\n"
	os.WriteFile(target, []byte(orig), 0o600)
	rc := filepath.Join(home, ".zshrc")
	if err := os.Symlink("dotfiles/zshrc", rc); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--shell", "zsh"}, {"--uninstall", "--shell", "zsh"}} {
		cmd := exec.Command(filepath.Join(root, "install.sh"), append([]string{"--no-run"}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("install.sh %v: %v\n%s", args, err, out)
		}
		if st, err := os.Lstat(rc); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %v ~/.zshrc is no longer a symlink (%v)", args, err)
		}
		data, _ := os.ReadFile(target)
		if installed := strings.Contains(string(data), "tether init zsh"); installed != (args[0] == "--shell") {
			t.Errorf("after %v the target holds:\n%s", args, data)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
			t.Errorf("after %v the target's mode is %v", args, st.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(target + ".tether-backup"); string(b) == "" {
		t.Error("no backup next to the target")
	}
	if data, _ := os.ReadFile(target); string(data) != orig {
		t.Errorf("after uninstall: %q, want %q", data, orig)
	}
	if ents, _ := os.ReadDir(home); len(ents) > 0 {
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".zshrc.") {
				t.Errorf("left next to the link: %s", e.Name())
			}
		}
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
	root, err := testutil.ModuleRoot()
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

package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/internal/safeio"
)

func pluginSetup(t *testing.T) (*opencode.Agent, string, []byte) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "opencode")
	inst := opencode.New("", "").WithConfig(cfg)
	return inst, inst.PluginFile("user", ""), inst.Plugin([]string{"/bin/tether-hot", "hook", "--harness", "opencode"})
}

func TestInstallPluginIdempotentAndUninstall(t *testing.T) {
	inst, path, content := pluginSetup(t)
	cfg := filepath.Dir(filepath.Dir(path))
	plan, err := InstallPlugin(inst, path, content, false)
	if err != nil || plan.Action != "written" || len(plan.Created) != 2 || plan.Created[0] != filepath.Dir(path) || plan.Created[1] != cfg {
		t.Fatalf("first install: %+v %v", plan, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != PluginPerm {
		t.Fatalf("plugin: %v %v", st, err)
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != PluginDirPerm {
		t.Errorf("plugins dir mode %v", st.Mode().Perm())
	}
	if plan, err := InstallPlugin(inst, path, content, false); err != nil || plan.Action != "unchanged" || plan.Changed() {
		t.Errorf("second install: %+v %v", plan, err)
	}
	newer := append([]byte(nil), content...)
	newer = append(newer, "// v2\n"...)
	if plan, err := InstallPlugin(inst, path, newer, false); err != nil || plan.Action != "updated" {
		t.Errorf("install over an older plugin: %+v %v", plan, err)
	}
	p, err := ReadPlugin(inst, path)
	if err != nil || !p.Ours || len(p.Command) != 4 || p.Command[0] != "/bin/tether-hot" {
		t.Errorf("ReadPlugin: %+v %v", p, err)
	}
	// Another file beside it keeps the plugins directory; the empty
	// config directory goes.
	plan, err = UninstallPlugin(inst, path, []string{filepath.Dir(path), cfg}, false)
	if err != nil || plan.Action != "removed" || len(plan.Removed) != 2 {
		t.Fatalf("uninstall: %+v %v", plan, err)
	}
	if _, err := os.Stat(cfg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("created directories left: %v", err)
	}
	if plan, err := UninstallPlugin(inst, path, nil, false); err != nil || plan.Action != "absent" {
		t.Errorf("second uninstall: %+v %v", plan, err)
	}
}

func TestUninstallPluginKeepsNonEmptyDirs(t *testing.T) {
	inst, path, content := pluginSetup(t)
	if _, err := InstallPlugin(inst, path, content, false); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(filepath.Dir(path), "mine.js")
	os.WriteFile(mine, []byte("export const Mine = async () => ({})\n"), 0o644)
	plan, err := UninstallPlugin(inst, path, []string{filepath.Dir(path)}, false)
	if err != nil || plan.Action != "removed" || len(plan.Removed) != 0 {
		t.Fatalf("uninstall: %+v %v", plan, err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("the user's plugin beside it: %v", err)
	}
}

// A user's own tether.js is never replaced or removed.
func TestPluginLeavesUsersFile(t *testing.T) {
	inst, path, content := pluginSetup(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	mine := "// my own plugin called tether.js\nexport const T = async () => ({})\n"
	os.WriteFile(path, []byte(mine), 0o600)
	if _, err := InstallPlugin(inst, path, content, false); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), path) {
		t.Errorf("install over the user's file: %v", err)
	}
	if _, err := UninstallPlugin(inst, path, []string{filepath.Dir(path)}, false); !errors.Is(err, ErrNotOurs) {
		t.Errorf("uninstall of the user's file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != mine {
		t.Errorf("the user's file changed: %q", data)
	}
}

// A symbolic link, a FIFO or a directory at the plugin's path is refused
// untouched, without hanging.
func TestPluginRefusesSurprises(t *testing.T) {
	for _, kind := range []string{"symlink", "dangling", "fifo", "dir"} {
		t.Run(kind, func(t *testing.T) {
			inst, path, content := pluginSetup(t)
			os.MkdirAll(filepath.Dir(path), 0o755)
			target := filepath.Join(t.TempDir(), "elsewhere.js")
			switch kind {
			case "symlink":
				// Even a link to a file of tether's: tether writes its
				// plugin itself, never through a link.
				os.WriteFile(target, content, 0o644)
				os.Symlink(target, path)
			case "dangling":
				os.Symlink(target, path)
			case "fifo":
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Skip(err)
				}
			case "dir":
				os.Mkdir(path, 0o755)
			}
			before, _ := os.Lstat(path)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for _, f := range []func() error{
					func() error { _, err := InstallPlugin(inst, path, content, false); return err },
					func() error { _, err := UninstallPlugin(inst, path, nil, false); return err },
				} {
					if err := f(); !errors.Is(err, safeio.ErrNotRegular) || !strings.Contains(err.Error(), path) {
						t.Errorf("%s: %v", kind, err)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("blocked")
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() {
				t.Errorf("the %s changed: %v %v", kind, after, err)
			}
			if _, err := os.Stat(target); kind == "dangling" && err == nil {
				t.Error("the link's target was created")
			}
		})
	}
}

func TestInstallPluginDryRun(t *testing.T) {
	inst, path, content := pluginSetup(t)
	plan, err := InstallPlugin(inst, path, content, true)
	if err != nil || plan.Action != "written" {
		t.Fatalf("%+v %v", plan, err)
	}
	if _, err := os.Stat(filepath.Dir(filepath.Dir(path))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote: %v", err)
	}
}

var _ agent.PluginInstaller = (*opencode.Agent)(nil)

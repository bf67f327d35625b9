package testutil

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIsolatedEnv: a child started with IsolatedEnv sees none of the
// user's directories nor any TETHER_* setting, whatever the test's own
// environment holds; extra entries win.
func TestIsolatedEnv(t *testing.T) {
	for _, k := range isolatedVars {
		t.Setenv(k, "/real/"+k)
	}
	t.Setenv("TETHER_CONFIG", "/real/config.toml")
	home := t.TempDir()
	cmd := exec.Command("env")
	cmd.Env = IsolatedEnv(home, "XDG_STATE_HOME="+home+"/state")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if strings.Contains(got, "/real/") {
		t.Errorf("the user's directories leak through:\n%s", got)
	}
	for _, want := range []string{"\nHOME=" + home + "\n", "\nXDG_DATA_HOME=" + home + "/.local/share\n", "\nXDG_STATE_HOME=" + home + "/state\n",
		"\nCLAUDE_CONFIG_DIR=" + home + "/.claude\n", "\nCODEX_HOME=" + home + "/.codex\n", "\nXDG_RUNTIME_DIR=" + home + "/.run\n"} {
		if !strings.Contains("\n"+got, want) {
			t.Errorf("no %q in:\n%s", strings.TrimSpace(want), got)
		}
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandsOtherCommandsToTether: what tether-hot does not answer itself
// runs the tether next to it with the same arguments, and the exit status
// is that tether's.
func TestHandsOtherCommandsToTether(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := t.TempDir()
	hot := filepath.Join(dir, "tether-hot")
	if out, err := exec.Command("go", "build", "-o", hot, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	fake := "#!/bin/sh\nprintf '%s|' \"$0\" \"$@\"\nexit 3\n"
	os.WriteFile(filepath.Join(dir, "tether"), []byte(fake), 0o755)
	for _, args := range [][]string{{"sessions", "list", "a b"}, {"prompt", "--help"}, {"complete", "--refresh-index"}, {"complete", "--", "tether", "ses"}, {}} {
		cmd := exec.Command(hot, args...)
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_CACHE_HOME="+dir)
		out, err := cmd.Output()
		want := filepath.Join(dir, "tether") + "|" + strings.Join(args, "|")
		if len(args) > 0 {
			want += "|"
		}
		if string(out) != want {
			t.Errorf("%q: ran %q, want %q", args, out, want)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("%q: exit %v, want tether's 3", args, err)
		}
	}
}

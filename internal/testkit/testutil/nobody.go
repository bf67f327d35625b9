// Package testutil holds helpers shared by tests in several packages.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Environment the re-run test sees: a world-writable scratch directory
// owned by nobody, and the copy of the test binary it runs from.
const (
	EnvBase = "TETHER_TEST_BASE"
	EnvExe  = "TETHER_TEST_EXE"
)

// RerunAsNobody runs test name of this test binary again as uid/gid 65534,
// for tests of permission failures that root (as CI runs) would not see.
// The child runs in a scratch directory named by $TETHER_TEST_BASE and
// must pass.
func RerunAsNobody(t *testing.T, name string) {
	t.Helper()
	scratch, err := os.MkdirTemp("", "tether-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	os.Chmod(scratch, 0o755)
	bin := filepath.Join(scratch, "test.bin")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(scratch, "work")
	os.Mkdir(work, 0o755)
	os.Chown(work, 65534, 65534)
	cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{EnvBase + "=" + work, EnvExe + "=" + bin, "HOME=" + work, "TMPDIR=" + work}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("as nobody: test did not pass:\n%s", out)
	}
}

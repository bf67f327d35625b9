package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

var (
	tetherOnce sync.Once
	tetherBin  string
	tetherErr  error
	tetherOut  []byte
)

// Tether builds the tether binary from this checkout once per test binary
// and returns its path. tether-hot is built next to it, as install.sh puts
// it, so the hooks, scripts and shims the tests install run it.
func Tether(t testing.TB) string {
	t.Helper()
	tetherOnce.Do(func() {
		root, err := testutil.ModuleRoot()
		if err != nil {
			tetherErr = err
			return
		}
		dir, err := os.MkdirTemp("", "tether-e2e-bin-")
		if err != nil {
			tetherErr = err
			return
		}
		tetherBin = filepath.Join(dir, "tether")
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/tether", "./cmd/tether-hot")
		cmd.Dir = root
		tetherOut, tetherErr = cmd.CombinedOutput()
	})
	if tetherErr != nil {
		t.Fatalf("e2e: building tether: %v\n%s", tetherErr, tetherOut)
	}
	return tetherBin
}

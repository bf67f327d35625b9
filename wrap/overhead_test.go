package wrap

import (
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkStartDirect and BenchmarkStartWrapped measure what the wrapper
// adds to starting a program that does nothing: the difference between the
// two is tether's start-up cost (finding the binary, pinning the root,
// writing the spawn and end events). The wrapped run goes through
// tether-hot, which the shell functions and shims run.
func BenchmarkStartDirect(b *testing.B) {
	noop := noopBinary(b)
	for i := 0; i < b.N; i++ {
		if err := exec.Command(noop, "-p", "hello").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStartWrapped(b *testing.B) {
	noop := noopBinary(b)
	tether := filepath.Join(b.TempDir(), "tether-hot")
	build := exec.Command("go", "build", "-o", tether, "../cmd/tether-hot")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	home := b.TempDir()
	env := testutil.IsolatedEnv(home, "TETHER_CLAUDE_BIN="+noop, "XDG_STATE_HOME="+filepath.Join(home, "state"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(tether, "run", "claude", "-p", "hello")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// noopBinary is a compiled program that exits at once, so the comparison is
// not dominated by a shell's start-up.
func noopBinary(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\nfunc main() {}\n"), 0o600)
	bin := filepath.Join(dir, "claude")
	cmd := exec.Command("go", "build", "-o", bin, src)
	cmd.Env = append(os.Environ(), "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build noop: %v\n%s", err, out)
	}
	return bin
}

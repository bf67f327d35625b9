package archtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// platforms are the systems besides Linux that every package must build
// for: their differences live in per-OS files (docs/architecture.md,
// "Platforms"), and a Linux-only call anywhere else breaks this.
var platforms = []struct{ goos, goarch string }{{"darwin", "arm64"}}

// TestBuildsForOtherPlatforms cross-compiles the module (go build, so the
// build cache keeps it to the packages that changed).
func TestBuildsForOtherPlatforms(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	r := root(t)
	for _, p := range platforms {
		for _, tags := range []string{"", "e2e"} {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, gobin, "build", "-tags", tags, "./...")
			cmd.Dir = r
			cmd.Env = append(os.Environ(), "GOOS="+p.goos, "GOARCH="+p.goarch, "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("GOOS=%s GOARCH=%s go build -tags %q ./...: %v\n%s", p.goos, p.goarch, tags, err, strings.TrimSpace(string(out)))
			}
		}
	}
}

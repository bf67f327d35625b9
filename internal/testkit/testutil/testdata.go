package testutil

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// modulePath is tether's go.mod module line: a go.mod of another module
// above the working directory (gencorpus run from elsewhere) is not ours.
const modulePath = "github.com/tether-dev/tether"

// Testdata is the path of elem under the module's testdata/ tree, one
// directory per agent and version (testdata/claude-code-2.1.332,
// testdata/codex-0.171.0; see docs/testing.md), e.g. Testdata(t,
// "codex-0.171.0", "golden-rollout-exec-resume.jsonl"). The path is not
// checked, so that it can be a filepath.Glob pattern.
func Testdata(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root, "testdata"}, elem...)...)
}

// ModuleRoot is the directory holding tether's go.mod: found walking up
// from the working directory (a test runs in its package's directory),
// else from this file's source directory, which a binary built from a
// checkout without -trimpath still knows wherever it runs.
func ModuleRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		if root, ok := moduleRootAbove(dir); ok {
			return root, nil
		}
	}
	return "", errors.New("tether's go.mod not found above the working directory or the test kit's source")
}

// moduleRootAbove walks up from dir to the first directory whose go.mod
// declares modulePath.
func moduleRootAbove(dir string) (string, bool) {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && declares(b, modulePath) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// declares reports whether go.mod content names module path.
func declares(gomod []byte, path string) bool {
	for _, line := range bytes.Split(gomod, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 2 && string(f[0]) == "module" && string(bytes.Trim(f[1], `"`)) == path {
			return true
		}
	}
	return false
}

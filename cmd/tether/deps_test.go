package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The shipped binary carries no development tools: the benchmark corpus
// generator and the fake model API are for scripts and tests only.
func TestBinaryLinksNoDevelopmentTools(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, bad := range []string{"/internal/testkit/", "tether/tools/", "/e2e/"} {
			if strings.Contains(pkg, bad) {
				t.Errorf("tether links %s", pkg)
			}
		}
	}
}

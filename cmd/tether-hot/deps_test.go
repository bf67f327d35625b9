package main

import (
	"os/exec"
	"strings"
	"testing"
)

// tether-hot exists to start fast: it must not link what makes tether slow
// to start (SQLite and its C runtime translation, the catalog with its
// package-level state, the command-line framework) nor anything else that
// only the full tether needs. See README, Performance.
func TestHotBinaryLinksNothingHeavy(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range deps {
		for _, bad := range []string{
			"modernc.org/", "/catalog", "github.com/urfave/cli", "/internal/app", "jsonschema",
			"encoding/gob", "github.com/dustin/go-humanize", "/internal/corpus", "/internal/fakeapi",
			"/internal/tools/", "/e2e/",
			// zstd: +1 MB and its package init on every hook; the archive's
			// compressed copies are tether's (archive.Codec).
			"github.com/klauspost/compress", "/archive/zstdcodec",
		} {
			if strings.Contains(pkg, bad) {
				t.Errorf("tether-hot links %s", pkg)
			}
		}
		if pkg == "net" || pkg == "net/http" {
			t.Errorf("tether-hot links %s (no network on the hot paths)", pkg)
		}
		// crypto/sha256 links the FIPS module, whose package inits (CPU
		// probes, self-test registration, AES-GCM, SHA-3/512) run at
		// every start: the hot paths hash a few bytes with
		// internal/puresha; the archive's hash comes with its codec.
		if strings.HasPrefix(pkg, "crypto/") || pkg == "crypto" {
			t.Errorf("tether-hot links %s", pkg)
		}
		// A template engine, and net/url with it, for the init scripts
		// only tether prints (shellinit renders them without it).
		if pkg == "text/template" || pkg == "net/url" {
			t.Errorf("tether-hot links %s", pkg)
		}
	}
}

package main

import (
	"os"
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
			"modernc.org/", "/catalog", "github.com/urfave/cli", "jsonschema",
			"encoding/gob", "github.com/dustin/go-humanize", "/internal/testkit/",
			"tether/tools/", "/e2e/",
			// zstd: +1 MB and its package init on every hook; the archive's
			// compressed copies are tether's (archive.Codec).
			"github.com/klauspost/compress", "/archive/zstdcodec",
			// BurntSushi/toml's package init read the local time zone at
			// every start: tether-hot reads the config file with
			// go-toml/v2 (~0.02 ms of init, measured with
			// GODEBUG=inittrace=1); codex trust records are tether's
			// (hooks/codextrust).
			"github.com/BurntSushi/toml", "/hooks/codextrust",
		} {
			if strings.Contains(pkg, bad) {
				t.Errorf("tether-hot links %s", pkg)
			}
		}
		if pkg == "net" || pkg == "net/http" {
			t.Errorf("tether-hot links %s (no network on the hot paths)", pkg)
		}
		// A template engine, and net/url with it, for the init scripts
		// only tether prints (shellinit renders them without it).
		if pkg == "text/template" || pkg == "net/url" {
			t.Errorf("tether-hot links %s", pkg)
		}
	}
}

// regexp is linked (the install code and codex's rollout reader use it)
// but nothing tether-hot runs may reach a compile, but for the config's
// check of the work_refs patterns a file sets (internal/config/configfile:
// one reader of the file for both binaries). That makes the Unicode
// tables' initialisers run at every start: 0.05 ms (GODEBUG=inittrace=1),
// under the 0.3 ms a hot path's optimisation must buy. The linker's
// dependency dump shows who reaches what.
func TestHotBinaryReachesNoRegexpCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("links the binary")
	}
	out, err := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -dumpdep: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		from, to, ok := strings.Cut(line, " -> ")
		if !ok || strings.HasPrefix(from, "regexp") || strings.HasPrefix(from, "github.com/tether-dev/tether/internal/config/configfile.validateWorkRefs") {
			continue
		}
		if strings.HasPrefix(to, "regexp.") && (strings.Contains(to, "ompile") || strings.HasPrefix(to, "regexp.(*Regexp)")) {
			t.Errorf("tether-hot reaches %s from %s", to, from)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/shquote"
)

// TestDoctorHooks: doctor finds tether's hooks and statusLine, fails when
// they run a binary that is gone, and --fix installs them again.
func TestDoctorHooks(t *testing.T) {
	ta := newTestApp(t)
	ta.run("doctor")
	if out := ta.out.String(); !strings.Contains(out, "warn  hooks      not installed") || !strings.Contains(out, "warn  statusLine not set") {
		t.Fatalf("no hooks:\n%s", out)
	}
	// Hook commands run the tether on PATH: this test binary, named tether.
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	exe, _ := os.Executable()
	self := filepath.Join(bin, "tether")
	if err := os.Symlink(exe, self); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = bin
	if code := ta.run("hooks", "install", "--claude-version", "2.1.332", "--statusline"); code != 0 {
		t.Fatalf("hooks install: %s", ta.err)
	}
	settings := filepath.Join(ta.Loc.ClaudeDir, "settings.json")
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), shquote.Quote(self)+" hook") {
		t.Fatalf("hook commands do not run %s:\n%s", self, data)
	}
	// The binary moves: the installed commands now name one that is gone
	// (tether recognises them by the record of what it installed).
	gone := self
	bin2 := filepath.Join(ta.home, "bin2")
	os.MkdirAll(bin2, 0o755)
	self = filepath.Join(bin2, "tether")
	if err := os.Rename(gone, self); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = bin2
	ta.out.Reset()
	if code := ta.run("doctor"); code != 1 {
		t.Errorf("doctor with hooks running a missing binary: exit %d", code)
	}
	out := ta.out.String()
	if !strings.Contains(out, "fail  hooks      "+settings+" runs "+gone+", which does not exist") ||
		!strings.Contains(out, "fail  statusLine "+shquote.Quote(gone)+" statusline") {
		t.Errorf("missing binary:\n%s", out)
	}
	ta.out.Reset()
	ta.run("doctor", "--fix")
	ta.out.Reset()
	ta.run("doctor")
	if out := ta.out.String(); !strings.Contains(out, "ok    hooks      ") || !strings.Contains(out, "running "+self) ||
		!strings.Contains(out, "ok    statusLine "+shquote.Quote(self)+" statusline") {
		t.Errorf("after --fix:\n%s", out)
	}
}

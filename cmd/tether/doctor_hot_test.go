package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/cmd/internal/hot"
)

// TestDoctorHotBinary: doctor warns when tether-hot is missing next to
// tether, fails when it does not run or reports another version, and is
// content when it is the same version.
func TestDoctorHotBinary(t *testing.T) {
	ta := newTestApp(t)
	dir := t.TempDir()
	self := filepath.Join(dir, "tether")
	os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755)
	hotPath := filepath.Join(dir, hot.Name)
	version, verr := "tether-hot version 1.2.3-test", error(nil)
	run := func() string {
		ta.out.Reset()
		runDoctor(doctorOptions{
			IO: ta.IO, Loc: ta.Loc, Root: ta.Root(), LoadConf: ta.Config,
			Executable: func() (string, error) { return self, nil },
			LookPath:   func(string) (string, error) { return "", os.ErrNotExist },
			Version:    "1.2.3-test",
			HotVersion: func(p string) (string, error) {
				if p != hotPath {
					t.Errorf("ran %s, want %s", p, hotPath)
				}
				return version, verr
			},
		})
		return ta.out.String()
	}
	for _, tc := range []struct {
		name, want string
		setup      func()
	}{
		{"missing", "warn  tether-hot " + hotPath + " is missing", func() {}},
		{"same version", "ok    tether-hot " + hotPath + " (1.2.3-test)", func() { os.WriteFile(hotPath, []byte("#!/bin/sh\n"), 0o755) }},
		{"other version", `fail  tether-hot ` + hotPath + ` says "tether-hot version 1.2.2", this tether is 1.2.3-test`, func() { version = "tether-hot version 1.2.2" }},
		{"does not run", "fail  tether-hot " + hotPath + " does not run: exec format error", func() { verr = errors.New("exec format error") }},
	} {
		tc.setup()
		if out := run(); !strings.Contains(out, tc.want) {
			t.Errorf("%s: want %q in\n%s", tc.name, tc.want, out)
		}
	}
}

// TestHooksInstallRunsHotBinary: the command lines tether writes name the
// tether-hot next to the tether they are for, when there is one.
func TestHooksInstallRunsHotBinary(t *testing.T) {
	dir := t.TempDir()
	tether := filepath.Join(dir, "tether")
	os.WriteFile(tether, []byte("#!/bin/sh\n"), 0o755)
	if got := tetherCommand(tether, "hook"); got != tether+" hook" {
		t.Errorf("without tether-hot: %q", got)
	}
	os.WriteFile(filepath.Join(dir, hot.Name), []byte("#!/bin/sh\n"), 0o755)
	want := filepath.Join(dir, hot.Name) + " statusline"
	if got := tetherCommand(tether, "statusline"); got != want {
		t.Errorf("with tether-hot: %q, want %q", got, want)
	}
}

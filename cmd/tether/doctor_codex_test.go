package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// TestDoctorCodexTrust: Codex runs a hook only while its trust hash in
// config.toml matches the hook. After the binary moved, --fix points the
// hooks at the new one and, because tether installed them with --trust,
// trusts them again; doctor never says ok while Codex would skip them.
func TestDoctorCodexTrust(t *testing.T) {
	ta := newTestApp(t)
	exe, _ := os.Executable()
	oldBin, newBin := filepath.Join(ta.home, "old"), filepath.Join(ta.home, "new")
	os.MkdirAll(oldBin, 0o755)
	os.MkdirAll(newBin, 0o755)
	if err := os.Symlink(exe, filepath.Join(oldBin, "tether")); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = oldBin
	if code := ta.run("hooks", "install", "--harness", "codex", "--trust"); code != 0 {
		t.Fatalf("install: %s", ta.err)
	}
	doctor := func(args ...string) string {
		ta.out.Reset()
		ta.run(append([]string{"doctor"}, args...)...)
		var lines []string
		for _, l := range strings.Split(ta.out.String(), "\n") {
			if strings.Contains(l, "codex hook") || strings.Contains(l, "codex trust") || strings.Contains(l, "fixed") {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	}
	if out := doctor(); !strings.Contains(out, "ok    codex hook") || !strings.Contains(out, "trusted") {
		t.Fatalf("installed with --trust:\n%s", out)
	}

	// The binary moves: hooks.json runs one that is gone.
	os.Rename(filepath.Join(oldBin, "tether"), filepath.Join(newBin, "tether"))
	ta.env["PATH"] = newBin
	if out := doctor(); !strings.Contains(out, "fail  codex hook") {
		t.Errorf("binary moved:\n%s", out)
	}
	doctor("--fix")
	out := doctor()
	if !strings.Contains(out, "ok    codex hook") || !strings.Contains(out, "running "+filepath.Join(newBin, "tether")) || !strings.Contains(out, "trusted") {
		t.Errorf("after --fix:\n%s", out)
	}

	// hooks.json changed behind Codex's back (a Stop hook's timeout edited
	// by hand): its trust hash no longer matches and Codex skips it.
	hooksPath := filepath.Join(ta.home, ".codex", "hooks.json")
	data, _ := os.ReadFile(hooksPath)
	edited, err := sjson.SetBytes(data, "hooks.Stop.0.hooks.0.timeout", 77)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(hooksPath, edited, 0o600)
	if out := doctor(); strings.Contains(out, "ok    codex hook") || !strings.Contains(out, "fail  codex hook") || !strings.Contains(out, "trust") {
		t.Errorf("stale trust hashes:\n%s", out)
	}
	doctor("--fix")
	if out := doctor(); !strings.Contains(out, "ok    codex hook") {
		t.Errorf("--fix re-trusts what tether trusted:\n%s", out)
	}
}

// TestDoctorCodexUntrustedWithoutTrustFlag: hooks installed without
// --trust wait for the user's review in Codex; doctor says so and --fix
// does not trust them on the user's behalf.
func TestDoctorCodexUntrustedWithoutTrustFlag(t *testing.T) {
	ta := newTestApp(t)
	exe, _ := os.Executable()
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink(exe, filepath.Join(bin, "tether"))
	ta.env["PATH"] = bin
	if code := ta.run("hooks", "install", "--harness", "codex"); code != 0 {
		t.Fatalf("install: %s", ta.err)
	}
	ta.out.Reset()
	ta.run("doctor", "--fix")
	if out := ta.out.String(); strings.Contains(out, "ok    codex hook") || !strings.Contains(out, "not trusted") {
		t.Errorf("untrusted hooks:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(ta.home, ".codex", "config.toml")); strings.Contains(string(data), "trusted_hash") {
		t.Errorf("--fix trusted hooks the user never trusted:\n%s", data)
	}
}

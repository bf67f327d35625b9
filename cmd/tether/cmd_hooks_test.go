package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
)

// fakeClaude writes a script that prints version as 'claude --version'
// does.
func fakeClaude(t *testing.T, dir, version string) string {
	t.Helper()
	p := filepath.Join(dir, "claude-"+version)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+version+" (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHooksInstallClaudeByVersion(t *testing.T) {
	ta := newTestApp(t)
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tether"), []byte("#!/bin/sh\n"), 0o755)
	ta.env["PATH"] = bin
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	orig := "{\n  \"model\": \"opus\"\n}\n"
	os.WriteFile(settings, []byte(orig), 0o644)

	ta.env["TETHER_CLAUDE_BIN"] = fakeClaude(t, ta.home, "2.0.77")
	if code := ta.run("hooks", "install"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	data, _ := os.ReadFile(settings)
	h := gjson.GetBytes(data, "hooks")
	if len(h.Map()) != 4 || h.Get("StopFailure").Exists() || h.Get("Stop.0.hooks.0.command").String() != filepath.Join(bin, "tether")+" hook" {
		t.Errorf("2.0.77 install: %s", data)
	}
	if !strings.Contains(ta.err.String(), "installed only") {
		t.Errorf("no note about the classic set: %q", ta.err)
	}
	if bak, _ := os.ReadFile(settings + ".bak"); string(bak) != orig {
		t.Errorf("backup: %q", bak)
	}
	if st, _ := os.Stat(settings); st.Mode().Perm() != 0o644 {
		t.Errorf("mode changed to %v", st.Mode())
	}

	ta.env["TETHER_CLAUDE_BIN"] = fakeClaude(t, ta.home, "2.1.332")
	ta.out.Reset()
	if code := ta.run("hooks", "install", "--statusline"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	data, _ = os.ReadFile(settings)
	if n := len(gjson.GetBytes(data, "hooks").Map()); n != 8 || !gjson.GetBytes(data, "statusLine").Exists() {
		t.Errorf("2.1.332 install: %d events: %s", n, data)
	}
	ta.out.Reset()
	ta.run("hooks", "status")
	for _, want := range []string{"tether on PATH: " + filepath.Join(bin, "tether"), "SessionStart", "statusLine", "the tether on PATH"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, ta.out)
		}
	}
	ta.out.Reset()
	if code := ta.run("hooks", "install", "--statusline"); code != 0 || !strings.Contains(ta.out.String(), "nothing to change") {
		t.Errorf("second install: %d %s", code, ta.out)
	}
	if code := ta.run("hooks", "uninstall"); code != 0 {
		t.Fatal(ta.err)
	}
	if data, _ = os.ReadFile(settings); string(data) != orig {
		t.Errorf("after uninstall: %q", data)
	}
}

func TestHooksInstallRefusesMalformedAndDryRun(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_CLAUDE_BIN"] = filepath.Join(ta.home, "no-claude")
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	bad := "{\n  \"model\": \"opus\",\n}\n"
	os.WriteFile(settings, []byte(bad), 0o600)
	code := ta.run("hooks", "install")
	if code != 4 || !strings.Contains(ta.err.String(), settings+": line 3") {
		t.Errorf("malformed: exit %d %q", code, ta.err)
	}
	if data, _ := os.ReadFile(settings); string(data) != bad {
		t.Error("malformed file touched")
	}
	if _, err := os.Stat(settings + ".bak"); err == nil {
		t.Error("backup written for a refused edit")
	}
	os.WriteFile(settings, []byte("{}"), 0o600)
	ta.out.Reset()
	ta.err.Reset()
	if code := ta.run("hooks", "install", "--dry-run", "--scope", "user"); code != 0 {
		t.Fatal(ta.err)
	}
	if data, _ := os.ReadFile(settings); string(data) != "{}" || !strings.Contains(ta.out.String(), "would become") {
		t.Errorf("dry run wrote or printed nothing: %s / %s", data, ta.out)
	}
	if !strings.Contains(ta.err.String(), "could not run") {
		t.Errorf("no note for a missing claude: %q", ta.err)
	}
	for _, args := range [][]string{{"hooks", "install", "--scope", "global"}, {"hooks", "install", "--harness", "codex", "--scope", "project"}, {"hooks", "install", "--harness", "vim"}} {
		if code := ta.run(args...); code != 2 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestHooksInstallCodexWithTrust(t *testing.T) {
	ta := newTestApp(t)
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tether"), []byte("#!/bin/sh\n"), 0o755)
	ta.env["PATH"] = bin
	cfgPath := filepath.Join(ta.home, ".codex", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	cfg := "model = \"gpt-5\"\n"
	os.WriteFile(cfgPath, []byte(cfg), 0o600)
	if code := ta.run("hooks", "install", "--harness", "codex"); code != 0 {
		t.Fatal(ta.err)
	}
	data, _ := os.ReadFile(filepath.Join(ta.home, ".codex", "hooks.json"))
	if !strings.HasSuffix(gjson.GetBytes(data, "hooks.Stop.0.hooks.0.command").String(), " hook --harness codex") {
		t.Errorf("hooks.json: %s", data)
	}
	if got, _ := os.ReadFile(cfgPath); string(got) != cfg {
		t.Errorf("config.toml changed without --trust: %s", got)
	}
	if code := ta.run("hooks", "install", "--harness", "codex", "--trust"); code != 0 {
		t.Fatal(ta.err)
	}
	got, _ := os.ReadFile(cfgPath)
	if n := strings.Count(string(got), "trusted_hash = \"sha256:"); n != 8 {
		t.Errorf("%d trust records:\n%s", n, got)
	}
	if code := ta.run("hooks", "uninstall", "--harness", "codex"); code != 0 {
		t.Fatal(ta.err)
	}
	if got, _ := os.ReadFile(cfgPath); string(got) != cfg {
		t.Errorf("config.toml after uninstall: %q", got)
	}
}

func TestStatuslineCommand(t *testing.T) {
	ta := newTestApp(t)
	fx := loadStatusInputs(t)
	ta.IO.In = strings.NewReader(fx[0])
	if code := ta.run("statusline"); code != 0 {
		t.Fatal(ta.err)
	}
	if got := ta.out.String(); got != "Opus 5.5 · ctx ░░░░░░░░ 0.1% (1.1k/1M)\n" {
		t.Errorf("line: %q", got)
	}
	st, err := state.LoadSession(ta.Loc.StateDir, "433bf38a-107f-4fdd-b991-1d498fc01eb4")
	if err != nil || st.ReportedWindow != 1_000_000 {
		t.Errorf("state: %+v %v", st, err)
	}
	// Garbage in: still one line, exit 0, the error logged.
	ta.out.Reset()
	ta.IO.In = strings.NewReader("not json")
	if code := ta.run("statusline"); code != 0 || strings.Count(ta.out.String(), "\n") != 1 || ta.err.Len() != 0 {
		t.Errorf("garbage: %d %q %q", code, ta.out, ta.err)
	}
}

func loadStatusInputs(t *testing.T) []string {
	data, err := os.ReadFile(testutil.Testdata(t, "claude-code-2.1.332", "sample-statusline-stdin.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func TestHooksInstallProjectAndLocalScope(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.home, "src", "proj")
	os.MkdirAll(proj, 0o755)
	ta.env["TETHER_IDENTITY_ROOT"] = proj
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tether"), []byte("#!/bin/sh\n"), 0o755)
	ta.env["PATH"] = bin
	for scope, file := range map[string]string{"project": "settings.json", "local": "settings.local.json"} {
		if code := ta.run("hooks", "install", "--scope", scope, "--claude-version", "2.1.332"); code != 0 {
			t.Fatalf("%s: %s", scope, ta.err)
		}
		data, err := os.ReadFile(filepath.Join(proj, ".claude", file))
		if err != nil || len(gjson.GetBytes(data, "hooks").Map()) != 8 {
			t.Errorf("%s: %v %s", scope, err, data)
		}
	}
	if _, err := os.Stat(filepath.Join(ta.home, ".claude", "settings.json")); err == nil {
		t.Error("project scope wrote the user settings")
	}
	ta.out.Reset()
	ta.run("hooks", "status")
	if strings.Count(ta.out.String(), "SessionStart, Stop, StopFailure") != 2 {
		t.Errorf("status:\n%s\n%s", ta.out, ta.err)
	}
}

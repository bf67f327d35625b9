package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/state"
)

// TestHooksOpenCodePlugin: install writes tether's plugin into OpenCode's
// plugins directory, status and doctor see it (and the binary it runs
// going missing; --fix writes it again), and uninstall removes the file
// and the directories install created, leaving the tree as it was.
func TestHooksOpenCodePlugin(t *testing.T) {
	ta := newTestApp(t)
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	exe, _ := os.Executable()
	self := filepath.Join(bin, "tether")
	if err := os.Symlink(exe, self); err != nil {
		t.Fatal(err)
	}
	ta.env["PATH"] = bin
	cfg := filepath.Join(ta.home, "config", "opencode")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "opencode.json"), []byte("{}\n"), 0o644)
	plugin := filepath.Join(cfg, "plugins", "tether.js")
	if code := ta.run("hooks", "install", "--harness", "opencode"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, ta.err)
	}
	data, err := os.ReadFile(plugin)
	if err != nil || !strings.Contains(string(data), `const COMMAND = ["`+self+`","hook","--harness","opencode"]`) {
		t.Fatalf("plugin: %v\n%s", err, data)
	}
	if st, _ := os.Stat(plugin); st.Mode().Perm() != 0o644 {
		t.Errorf("plugin mode %v", st.Mode().Perm())
	}
	if !strings.Contains(ta.out.String(), "written") || !strings.Contains(ta.err.String(), "@opencode-ai/plugin") {
		t.Errorf("install said:\n%s%s", ta.out, ta.err)
	}
	rec, _ := state.LoadHooksRecord(ta.Loc.StateDir)
	if fr := rec.Files[state.HooksRecordKey(plugin)]; fr == nil || len(fr.CreatedDirs) != 1 || fr.CreatedDirs[0] != filepath.Dir(plugin) {
		t.Errorf("record: %+v", fr)
	}
	ta.out.Reset()
	if code := ta.run("hooks", "install", "--harness", "opencode"); code != 0 || !strings.Contains(ta.out.String(), "nothing to change") {
		t.Errorf("second install: exit %d:\n%s", code, ta.out)
	}
	ta.out.Reset()
	ta.run("hooks", "status")
	if out := ta.out.String(); !strings.Contains(out, plugin+": plugin") || !strings.Contains(out, "runs "+self+" hook --harness opencode (the tether on PATH)") {
		t.Errorf("status:\n%s", out)
	}
	ta.out.Reset()
	ta.run("doctor")
	if out := ta.out.String(); !strings.Contains(out, "ok    opencode   plugin "+plugin+", running "+self) {
		t.Errorf("doctor:\n%s", out)
	}
	// No @opencode-ai/plugin in the config directory: OpenCode waits for
	// npm at each start, which npm's offline mode ends at once.
	if out := ta.out.String(); !strings.Contains(out, "warn  opencode   "+filepath.Dir(filepath.Dir(plugin))+" has no node_modules/@opencode-ai/plugin") {
		t.Errorf("doctor does not say OpenCode waits for npm:\n%s", out)
	}
	os.WriteFile(filepath.Join(ta.home, ".npmrc"), []byte("offline=true\n"), 0o600)
	ta.out.Reset()
	ta.run("doctor")
	if out := ta.out.String(); strings.Contains(out, "@opencode-ai/plugin") {
		t.Errorf("doctor with npm offline:\n%s", out)
	}
	// The binary moves away: doctor fails, --fix points the plugin at the
	// tether now on PATH.
	bin2 := filepath.Join(ta.home, "bin2")
	os.MkdirAll(bin2, 0o755)
	moved := filepath.Join(bin2, "tether")
	os.Rename(self, moved)
	ta.env["PATH"] = bin2
	ta.out.Reset()
	if code := ta.run("doctor"); code != 1 || !strings.Contains(ta.out.String(), "fail  opencode   "+plugin+" runs "+self+", which does not exist") {
		t.Errorf("doctor with the binary gone: exit %d\n%s", code, ta.out)
	}
	ta.out.Reset()
	ta.run("hooks", "status")
	if out := ta.out.String(); !strings.Contains(out, "MISSING") {
		t.Errorf("status with the binary gone:\n%s", out)
	}
	ta.run("doctor", "--fix")
	if data, _ := os.ReadFile(plugin); !strings.Contains(string(data), `["`+moved+`",`) {
		t.Errorf("--fix did not point the plugin at %s:\n%.300s", moved, data)
	}
	ta.out.Reset()
	if code := ta.run("hooks", "uninstall", "--harness", "opencode"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, ta.err)
	}
	entries, _ := os.ReadDir(cfg)
	if len(entries) != 1 || entries[0].Name() != "opencode.json" {
		t.Errorf("after uninstall %s holds %v", cfg, entries)
	}
	rec, _ = state.LoadHooksRecord(ta.Loc.StateDir)
	if len(rec.Files) != 0 {
		t.Errorf("record after uninstall: %+v", rec.Files)
	}
}

// TestHooksOpenCodeUsersFile: a tether.js that is not tether's is
// refused by install (exit 4, one line naming it) and left by uninstall.
func TestHooksOpenCodeUsersFile(t *testing.T) {
	ta := newTestApp(t)
	plugin := filepath.Join(ta.home, "config", "opencode", "plugins", "tether.js")
	os.MkdirAll(filepath.Dir(plugin), 0o755)
	mine := "export const Mine = async () => ({})\n"
	os.WriteFile(plugin, []byte(mine), 0o644)
	code := ta.run("hooks", "install", "--harness", "opencode")
	if msg := ta.err.String(); code != 4 || !strings.Contains(msg, plugin) || !strings.Contains(msg, "is not tether's") || strings.Count(msg, "\n") != 1 {
		t.Errorf("install: exit %d, stderr %q", code, msg)
	}
	ta.err.Reset()
	if code := ta.run("hooks", "uninstall", "--harness", "opencode"); code != 0 || !strings.Contains(ta.err.String(), "left alone") {
		t.Errorf("uninstall: exit %d, stderr %q", code, ta.err)
	}
	if data, _ := os.ReadFile(plugin); string(data) != mine {
		t.Errorf("the user's file changed: %q", data)
	}
	ta.out.Reset()
	ta.run("hooks", "status")
	if !strings.Contains(ta.out.String(), "not tether's") {
		t.Errorf("status:\n%s", ta.out)
	}
}

// TestHooksOpenCodeProjectScope: --scope project writes the project's
// .opencode/plugins; local is refused.
func TestHooksOpenCodeProjectScope(t *testing.T) {
	ta := newTestApp(t)
	proj := filepath.Join(ta.home, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	t.Chdir(proj)
	if code := ta.run("hooks", "install", "--harness", "opencode", "--scope", "project"); code != 0 {
		t.Fatalf("install: exit %d: %s", code, ta.err)
	}
	plugin := filepath.Join(proj, ".opencode", "plugins", "tether.js")
	if _, err := os.Stat(plugin); err != nil {
		t.Fatal(err)
	}
	if code := ta.run("hooks", "install", "--harness", "opencode", "--scope", "local"); code != 2 {
		t.Errorf("--scope local: exit %d", code)
	}
	if code := ta.run("hooks", "uninstall", "--harness", "opencode", "--scope", "project"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, ta.err)
	}
	if _, err := os.Stat(filepath.Join(proj, ".opencode")); !os.IsNotExist(err) {
		t.Errorf(".opencode left: %v", err)
	}
}

// TestHookSeveralPayloads: payload arguments are handled in order in one
// run (the OpenCode plugin's last hook at exit).
func TestHookSeveralPayloads(t *testing.T) {
	ta := newTestApp(t)
	cwd := filepath.Join(ta.home, "p")
	p := func(event, extra string) string {
		return `{"hook_event_name":"` + event + `","session_id":"ses_x","cwd":"` + cwd + `","opencode_event":"x"` + extra + `}`
	}
	if code := ta.run("hook", "--harness", "opencode", p("SessionStart", `,"source":"startup"`),
		p("Stop", `,"tokens":1000,"context_window":200000,"model":"m"`), p("SessionEnd", `,"reason":"exit"`)); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var events []string
	for _, l := range ta.logLines(t) {
		r := gjson.Parse(l)
		events = append(events, r.Get("event").String()+"/"+r.Get("harness").String())
	}
	if got := strings.Join(events, " "); got != "session_spawn/opencode turn_end/opencode archive_export_start/opencode session_end/opencode" {
		t.Errorf("log: %s", got)
	}
}

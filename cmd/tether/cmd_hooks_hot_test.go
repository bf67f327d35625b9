package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/state"
)

// The hooks run tether-hot when it is next to tether, and the exact
// ownership of issue 13 knows those commands: a reinstall replaces them,
// uninstall removes them. Hooks a tether wrote before its tether-hot was
// installed are its own too: with no record of them (an older tether's
// install), a reinstall replaces them instead of adding a second set.
func TestHooksOwnTetherHotCommands(t *testing.T) {
	ta := newTestApp(t)
	tether := withTetherOnPath(t, ta)
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte("{\n  \"model\": \"opus\"\n}\n"), 0o600)
	install := []string{"hooks", "install", "--claude-version", "2.1.332", "--statusline"}
	if code := ta.run(install...); code != 0 {
		t.Fatalf("install: %s", ta.err)
	}
	plain, _ := os.ReadFile(settings)
	if c := gjson.GetBytes(plain, "hooks.Stop.0.hooks.0.command").String(); c != tether+" hook" {
		t.Fatalf("without tether-hot the hook runs %q", c)
	}

	// tether-hot arrives next to tether; the record of the first install
	// is gone (as after an install by a tether that kept none).
	hotPath := filepath.Join(filepath.Dir(tether), hot.Name)
	os.WriteFile(hotPath, []byte("#!/bin/sh\n"), 0o755)
	if err := os.Remove(state.HooksRecordPath(ta.Loc.StateDir)); err != nil {
		t.Fatal(err)
	}
	if code := ta.run(install...); code != 0 {
		t.Fatalf("reinstall: %s", ta.err)
	}
	data, _ := os.ReadFile(settings)
	if n := strings.Count(string(data), " hook\""); n != len(gjson.GetBytes(data, "hooks").Map()) {
		t.Errorf("%d hook commands for %d events (a second set was added?):\n%s", n, len(gjson.GetBytes(data, "hooks").Map()), data)
	}
	if strings.Contains(string(data), "\""+tether+" hook\"") {
		t.Errorf("the plain tether hook is still there:\n%s", data)
	}
	if c := gjson.GetBytes(data, "hooks.Stop.0.hooks.0.command").String(); c != hotPath+" hook" {
		t.Errorf("hook runs %q, want %s hook", c, hotPath)
	}
	if c := gjson.GetBytes(data, "statusLine.command").String(); c != hotPath+" statusline" {
		t.Errorf("statusLine runs %q", c)
	}

	if code := ta.run("hooks", "uninstall"); code != 0 {
		t.Fatalf("uninstall: %s", ta.err)
	}
	if data, _ := os.ReadFile(settings); string(data) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("after uninstall: %q", data)
	}
}

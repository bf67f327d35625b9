package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/state"
)

// TestStaleSessionShown: a session whose resume failed (and whose
// transcript has not changed since) is listed and shown as stale, with the
// reason and date, and show prints the command that would fix it.
func TestStaleSessionShown(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	transcript := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-proj", claudeOld+".jsonl")
	at := time.Date(2026, 11, 29, 9, 30, 0, 0, time.Local)
	state.MarkStale(ta.Loc.StateDir, claudeOld, transcript, "prompt too long", at)

	if code := ta.run("sessions", "list"); code != 0 {
		t.Fatalf("list: exit %d %s", code, ta.err)
	}
	for _, line := range strings.Split(ta.out.String(), "\n") {
		if strings.Contains(line, "4a3624db") && !strings.Contains(line, " stale ") {
			t.Errorf("stale session listed as: %s", line)
		}
		if strings.Contains(line, "d9f7843f") && strings.Contains(line, "stale") {
			t.Errorf("healthy session listed as stale: %s", line)
		}
	}
	ta.out.Reset()
	ta.run("sessions", "list", "--state", "stale", "--json")
	if m := validate(t, "list", ta.out.Bytes()); len(m["sessions"].([]any)) != 1 {
		t.Errorf("--state stale: %s", ta.out)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "show", "4a36"); code != 0 {
		t.Fatalf("show: exit %d %s", code, ta.err)
	}
	mark := state.StalePath(ta.Loc.StateDir, claudeOld)
	for _, want := range []string{"stale (prompt too long, on 2026-11-29 09:30)", "fix:           tether trim --fit 60% " + claudeOld,
		"clear mark:    rm " + mark + " (tether then tries the resume again)"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, ta.out)
		}
	}
	ta.out.Reset()
	ta.run("sessions", "show", "4a36", "--json")
	if m := validate(t, "show", ta.out.Bytes()); m["stale"] == nil {
		t.Errorf("show --json lacks stale: %s", ta.out)
	}
}

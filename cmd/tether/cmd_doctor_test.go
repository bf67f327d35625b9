package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/locations"
)

func TestDoctorUnwritableStateDir(t *testing.T) {
	ta := newTestApp(t)
	// A file where the state directory should be: unwritable for everyone,
	// root included.
	os.WriteFile(filepath.Join(ta.home, "state"), nil, 0o600)
	ta.Loc = locations.FromEnv(ta.Getenv)
	code := ta.run("doctor")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(ta.out.String(), "fail  state dir") {
		t.Errorf("doctor output:\n%s", ta.out)
	}
	if strings.Count(ta.err.String(), "\n") != 1 {
		t.Errorf("stderr: %q", ta.err)
	}
	// A command that does not need the log still works.
	ta.out.Reset()
	ta.Log().Info("spawn", "x")
	if code := ta.run("identity", ta.home); code != 0 {
		t.Errorf("identity with an unwritable state dir: exit %d", code)
	}
}

func TestDoctorReportsCatalogDiagnostics(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "x", "bad00000-0000.jsonl"), nil)
	ta.run("doctor")
	if !strings.Contains(ta.out.String(), "warn  catalog    3 sessions, 1 unreadable file") || !strings.Contains(ta.out.String(), "empty transcript") {
		t.Errorf("doctor:\n%s", ta.out)
	}
}

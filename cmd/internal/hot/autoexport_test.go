package hot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
)

// exportHookDeps is a tether-hot in a throw-away HOME (config: the
// config file's text) at the clock *now.
func exportHookDeps(t *testing.T, home, config string, now *time.Time) *Deps {
	t.Helper()
	env := map[string]string{
		"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_DATA_HOME": filepath.Join(home, "data"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"), "CODEX_HOME": filepath.Join(home, ".codex"),
	}
	if config != "" {
		os.MkdirAll(filepath.Join(home, "config", "tether"), 0o700)
		os.WriteFile(filepath.Join(home, "config", "tether", "config.toml"), []byte(config), 0o600)
	}
	ios, _, _, _ := iostreams.Test()
	getenv := func(k string) string { return env[k] }
	return &Deps{IO: ios, Getenv: getenv, Now: func() time.Time { return *now }, Loc: locations.FromEnv(getenv)}
}

// The OpenCode plugin's end of a turn (Stop, at session.idle) or of a
// session starts one background `tether archive sync --session`, at most
// once per session per ExportInterval; another agent's events, or an
// archive that is disabled, start none.
func TestHookStartsTheBackgroundExport(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var started []string
	start := func(args []string) (int, error) { started = append(started, strings.Join(args, " ")); return 42, nil }
	hook := func(d *Deps, harness, event, id string) {
		t.Setenv(EnvInHook, "")
		payload := `{"hook_event_name":"` + event + `","session_id":"` + id + `","cwd":"/home/example/proj"}`
		Hook(context.Background(), d, []string{"--harness", harness, payload}, start)
	}
	const id = "ses_dcd139480ffeoAscKd2JgtbA1X"
	want := "archive sync --session opencode:" + id
	for _, step := range []struct {
		advance     time.Duration
		harness, ev string
		id          string
		wantStarted int
	}{
		{0, "opencode", "Stop", id, 1},
		{time.Minute, "opencode", "SessionEnd", id, 1},                   // within the interval
		{time.Minute, "opencode", "Stop", "ses_other", 2},                // another session
		{ExportInterval, "opencode", "SessionStart", id, 2},              // not an end
		{0, "opencode", "Stop", id, 3},                                   // the interval passed
		{0, "claude", "Stop", "81d11e28-b896-4688-b583-c15940ac0fd2", 3}, // Claude's transcripts are linked
		{ExportInterval, "opencode", "Stop", "../../etc", 3},             // not a file name
	} {
		now = now.Add(step.advance)
		hook(exportHookDeps(t, home, "", &now), step.harness, step.ev, step.id)
		if len(started) != step.wantStarted {
			t.Fatalf("%s %s %s: started %q", step.harness, step.ev, step.id, started)
		}
	}
	if started[0] != want || started[2] != want {
		t.Errorf("started %q, want %q", started, want)
	}
	if st, err := os.Stat(filepath.Join(home, "state", "tether", "exports", "opencode-"+id)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("stamp: %v %v", st, err)
	}
	if log, _ := os.ReadFile(filepath.Join(home, "state", "tether", "events.jsonl")); !strings.Contains(string(log), `"event":"archive_export_start"`) {
		t.Errorf("log: %s", log)
	}

	started = nil
	off := t.TempDir()
	hook(exportHookDeps(t, off, "[archive]\nenabled = false\n", &now), "opencode", "Stop", id)
	if len(started) != 0 {
		t.Errorf("archive disabled: started %q", started)
	}
}

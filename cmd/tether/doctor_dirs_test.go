package main

import (
	"os"
	"strings"
	"testing"
)

// TestDoctorUnsafeDirs (issue 23, item 9): a cache directory others may
// write to and a state directory another user owns are named by doctor,
// with why; every other command refuses them in one line, and the hooks
// write nothing there.
func TestDoctorUnsafeDirs(t *testing.T) {
	ta := newTestApp(t)
	cache, stateDir := ta.Loc.CacheDir, ta.Loc.StateDir
	for _, d := range []string{cache, stateDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(cache, 0o777)
	owner := os.Geteuid() == 0
	if owner {
		if err := os.Chown(stateDir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if code := ta.run("doctor"); code != 1 {
		t.Errorf("doctor: exit %d, want 1", code)
	}
	out := ta.out.String()
	if !strings.Contains(out, "fail  dirs       "+cache+": writable by group or others (mode 0777)") {
		t.Errorf("doctor does not name the cache dir:\n%s", out)
	}
	if owner && !strings.Contains(out, stateDir+": owned by uid 65534, not by you (uid 0)") {
		t.Errorf("doctor does not name the state dir:\n%s", out)
	}
	if ents, _ := os.ReadDir(stateDir); len(ents) > 0 {
		t.Errorf("doctor wrote into the state dir: %v", ents)
	}

	ta.out.Reset()
	ta.err.Reset()
	if code := ta.run("sessions", "list"); code != 4 {
		t.Errorf("sessions list: exit %d, want 4 (refused)", code)
	}
	if msg := ta.err.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "tether doctor") || !strings.Contains(msg, stateDir) && !strings.Contains(msg, cache) {
		t.Errorf("sessions list: %q, want one line naming the directory", msg)
	}
	ta.IO.In = strings.NewReader(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"` + ta.home + `"}`)
	if code := ta.run("hook", "PostToolUse"); code != 0 {
		t.Errorf("hook: exit %d, want 0", code)
	}
	if ents, _ := os.ReadDir(stateDir); len(ents) > 0 {
		t.Errorf("the hook wrote into the state dir: %v", ents)
	}
	if ents, _ := os.ReadDir(cache); len(ents) > 0 {
		t.Errorf("something wrote into the cache dir: %v", ents)
	}
}

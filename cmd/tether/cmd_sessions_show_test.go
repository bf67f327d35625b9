package main

import (
	"strings"
	"testing"
)

func TestSessionsShow(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("sessions", "show", "claude-code:d9f7843f", "--json"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	m := validate(t, "show", ta.out.Bytes())
	if m["id"] != claudeNew || m["counts"] == nil || m["evidence"] == nil {
		t.Errorf("show: %v", m)
	}
	ta.out.Reset()
	if code := ta.run("sessions", "show", codexID[:6]); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	for _, want := range []string{"codex:" + codexID, "context curve:", "2 prompts", "cd /home/example/src/codex-proj && codex resume " + codexID} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, ta.out)
		}
	}
}

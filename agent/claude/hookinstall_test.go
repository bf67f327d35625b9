package claude

import (
	"strings"
	"testing"
)

func TestEventsFor(t *testing.T) {
	for v, want := range map[string]int{"2.0.77 (Claude Code)": 4, "2.1.332 (Claude Code)": 8, "3.0.0": 8, "": 4, "garbage": 4, "2.1.9": 4} {
		if got := len(EventsFor(v)); got != want {
			t.Errorf("%q: %d events, want %d", v, got, want)
		}
	}
}

// TestHookEventsSayWhyFewer: an old or unknown version gets the classic
// events and a reason; a current one every event and none.
func TestHookEventsSayWhyFewer(t *testing.T) {
	a := New("/home/example/.claude")
	for v, want := range map[string]string{
		"2.1.332 (Claude Code)\n": "",
		"2.0.77 (Claude Code)\n":  "Claude Code 2.0.77 (Claude Code): installed only SessionStart, Stop, SubagentStop, SessionEnd (versions before 2.1.332 ignore every hook when one event is unknown to them)",
		"":                        "installed only the events every Claude Code version knows (SessionStart, Stop, SubagentStop, SessionEnd)",
	} {
		he := a.HookEvents(func() string { return v })
		if he.Reduced != want || len(he.All) != 8 || (want == "") != (len(he.Events) == 8) {
			t.Errorf("%q: %+v", v, he)
		}
	}
	if got := a.HookSettings("user", "/p"); got != "/home/example/.claude/settings.json" {
		t.Errorf("user settings %s", got)
	}
	if got := a.HookSettings("local", "/p"); got != "/p/.claude/settings.local.json" {
		t.Errorf("local settings %s", got)
	}
	if strings.Join(a.HookScopes(), ",") != "user,project,local" {
		t.Errorf("scopes %v", a.HookScopes())
	}
}

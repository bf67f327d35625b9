package main

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/state"
)

// Claude Code prints its own "Resume this session with: claude --resume ID"
// when it exits, Codex's TUI "To continue this session, run: codex resume
// ID"; tether's line must not say it again. Only `codex exec` (which
// prints nothing of the kind) gets the command. The percentage is written
// as everywhere else.
func TestExitLineText(t *testing.T) {
	agents := hot.AgentsAt(locations.Locations{})
	claudeCode, codex := agents.Get("claude"), agents.Get("codex")
	st := state.Session{SessionID: "433bf38a-107f-4fdd-b991-1d498fc01eb4", UsageKnown: true, Window: 1_000_000, Percent: 0.1136}
	claude := hot.FormatExitLine(claudeCode, false, st, shortID(st.SessionID))
	if strings.Contains(claude, "--resume") || !strings.Contains(claude, "ctx 0.1%") || !strings.Contains(claude, "433bf38a") {
		t.Errorf("claude exit line: %q", claude)
	}
	if codex := hot.FormatExitLine(codex, false, st, shortID(st.SessionID)); strings.Contains(codex, "resume") {
		t.Errorf("codex TUI exit line: %q", codex)
	}
	if exec := hot.FormatExitLine(codex, true, st, shortID(st.SessionID)); !strings.Contains(exec, "codex resume 433bf38a-107f-4fdd-b991-1d498fc01eb4") {
		t.Errorf("codex exec exit line: %q", exec)
	}
}

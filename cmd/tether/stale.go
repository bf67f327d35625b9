package main

import (
	"os"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/state"
	"github.com/tether-dev/tether/wrap"
)

// StateStale is how list shows a session whose last resume failed.
const stateStale = "stale"

// staleMarks reads the failed resumes on record. It is the one place the
// catalog commands read them, so it can follow the marks where they move.
func (a *App) staleMarks() map[string]state.StaleMark {
	return state.StaleMarks(a.Loc.StateDir)
}

// markStale sets Stale on each session whose last resume failed and whose
// transcript is unchanged since.
func markStale(ss []catalog.Session, marks map[string]state.StaleMark) {
	if len(marks) == 0 {
		return
	}
	for i := range ss {
		m, ok := marks[ss[i].ID]
		if !ok || !m.Holds(ss[i].Source) {
			continue
		}
		ss[i].Stale = &catalog.Stale{Reason: m.Reason, At: m.At, Fix: staleFix(ss[i], m.Reason)}
	}
}

// staleFix is the one command that would make a stale session resumable:
// a fit trim for one too large (Claude; the trim keeps a backup), the
// backup put back for one that could not be loaded. "" when none is known.
func staleFix(s catalog.Session, reason string) string {
	if s.Harness != catalog.ClaudeCode {
		return ""
	}
	if fix := wrap.FitFix(true, s.ID, reason); fix != "" {
		return fix
	}
	if _, err := os.Stat(s.Source + ".bak"); err == nil {
		return "tether trim --restore " + s.ID
	}
	return ""
}

// displayState is the STATE a table shows: stale over resumable.
func displayState(s *catalog.Session) string {
	if s.Stale != nil && s.State != catalog.StateRunning {
		return stateStale
	}
	return s.State
}

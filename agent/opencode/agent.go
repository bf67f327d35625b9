// Package opencode is OpenCode (opencode-ai 1.18.33) behind tether's
// agent interface. OpenCode keeps every session in one SQLite database
// ($XDG_DATA_HOME/opencode/opencode.db, or $OPENCODE_DB): there is no
// transcript file per session, so the methods that read one find
// nothing here; the sessions are read by opencodesessions, which only
// tether links (tether-hot links no SQLite). This package reads no
// database and opens no file but /proc; the compaction's fork (an
// agent.Compactor) runs OpenCode's own export and import.
package opencode

import (
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/procfs"
)

// DBName is the database's name in the data directory.
const DBName = "opencode.db"

// Agent is OpenCode bound to one data directory.
type Agent struct {
	home, db string
	// Proc is the process table Live reads (zero: the machine's /proc).
	Proc procfs.FS
}

// New is OpenCode reading the data directory home, its sessions in db
// ("": home/opencode.db, where OpenCode keeps them unless OPENCODE_DB
// says otherwise).
func New(home, db string) *Agent {
	if db == "" && home != "" {
		db = filepath.Join(home, DBName)
	}
	return &Agent{home: home, db: db}
}

var _ agent.Agent = (*Agent)(nil)

// Name implements agent.Agent.
func (*Agent) Name() string { return agent.OpenCode }

// Command implements agent.Agent.
func (*Agent) Command() string { return "opencode" }

// Home implements agent.Agent: OpenCode's data directory.
func (a *Agent) Home() string { return a.home }

// DB is the database of the sessions.
func (a *Agent) DB() string { return a.db }

// At implements agent.Agent: a copy of the data directory has its
// database in the default place.
func (*Agent) At(home string) agent.Agent { return New(home, "") }

// FindTranscript implements agent.Files: sessions are rows of one
// database, not files.
func (*Agent) FindTranscript(string, bool) string { return "" }

// Head implements agent.Files: there is no transcript to read the head
// of.
func (*Agent) Head(string) (string, bool) { return "", false }

// NewestSession implements agent.Files: the newest session is a query of
// the database, which this package does not open (tether-hot links it).
func (*Agent) NewestSession(time.Time) string { return "" }

// SessionGlobs implements agent.Files: no file is a session's.
func (*Agent) SessionGlobs(string, string) []string { return nil }

// SessionIDOf implements agent.Files.
func (*Agent) SessionIDOf(string) string { return "" }

// LoadFailed implements agent.Failures. OpenCode says "Session not
// found" (exit 1) for an unknown id, but how a resume by the wrapper
// reads that is not built yet: nothing is recognised, so OpenCode's own
// message reaches the user unchanged.
func (*Agent) LoadFailed([]byte, string) bool { return false }

// ResumeFailure implements agent.Failures: a failed resume appends
// nothing to a transcript file (OpenCode writes its database), so no
// cause is recognised.
func (*Agent) ResumeFailure([]byte) agent.Failure { return agent.FailureNone }

// Usage implements agent.Agent: the usage is in the database's message
// rows, not in a transcript tail; none is found here (the session
// reader gives the sums).
func (*Agent) Usage(jsonl.Opener, string, jsonl.TailLimits) (agent.Usage, error) {
	return agent.Usage{}, nil
}

// Recent implements agent.Agent: as Usage, nothing is read here.
func (*Agent) Recent(jsonl.Opener, string, jsonl.TailLimits, int) (agent.Recent, error) {
	return agent.Recent{}, nil
}

// Resume implements agent.Agent: `opencode --session ID`, run in the
// session's directory (OpenCode resumed from another directory does not
// exit). OpenCode's --fork applies to `opencode run` only, so the TUI
// command cannot fork.
func (*Agent) Resume(id, _ string, fork bool) ([]string, bool) {
	if fork {
		return nil, false
	}
	return []string{"opencode", "--session", id}, true
}

// Capabilities implements agent.Agent: none of trim, fork, the start
// notice or the system prompt apply yet.
func (*Agent) Capabilities() agent.Capabilities { return agent.Capabilities{} }

package codex

import (
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/procfs"
)

// Agent is Codex behind tether's agent interface, bound to one
// $CODEX_HOME.
type Agent struct {
	home string
}

// New is Codex reading home ($CODEX_HOME or ~/.codex).
func New(home string) *Agent { return &Agent{home: home} }

var _ agent.Agent = (*Agent)(nil)

// Name implements agent.Agent.
func (*Agent) Name() string { return agent.Codex }

// Command implements agent.Agent.
func (*Agent) Command() string { return "codex" }

// Home implements agent.Agent.
func (a *Agent) Home() string { return a.home }

// FindTranscript implements agent.Files.
func (a *Agent) FindTranscript(id string, archived bool) string {
	return FindRollout(a.home, id, archived)
}

// At implements agent.Agent.
func (*Agent) At(home string) agent.Agent { return New(home) }

// Head implements agent.Files.
func (*Agent) Head(path string) (string, bool) { return Head(path) }

// NewestSession implements agent.Files.
func (a *Agent) NewestSession(since time.Time) string { return NewestThread(a.home, since) }

// SessionGlobs implements agent.Files. A rollout's name has its start
// time before the id, dashes and all: the glob is wide, SessionIDOf
// decides.
func (*Agent) SessionGlobs(root, prefix string) []string {
	name := "*" + prefix + "*.jsonl"
	return []string{filepath.Join(SessionsDir(root), "*", "*", "*", name), filepath.Join(ArchivedDir(root), name)}
}

// SessionIDOf implements agent.Files.
func (*Agent) SessionIDOf(path string) string {
	if !IsRolloutFile(filepath.Base(path)) {
		return ""
	}
	return ThreadID(path)
}

// LoadFailed implements agent.Failures.
func (*Agent) LoadFailed(stderr []byte, _ string) bool { return LoadFailed(stderr) }

// ResumeFailure implements agent.Failures: only an overflowed context
// window is the session's.
func (*Agent) ResumeFailure(appended []byte) agent.Failure {
	if ContextExceeded(appended) {
		return agent.FailureContextExceeded
	}
	return agent.FailureNone
}

// Live implements agent.Agent. Codex leaves no pid file: a thread runs
// while a process holds its rollout open.
func (*Agent) Live(_, path string) agent.Liveness {
	if path == "" {
		return agent.Liveness{}
	}
	if pid, ok := (procfs.FS{}).OpenBy(map[string]bool{path: true})[path]; ok {
		return agent.Liveness{PID: pid, Reason: "a process holds the rollout open"}
	}
	return agent.Liveness{}
}

// Usage implements agent.Agent.
func (*Agent) Usage(open jsonl.Opener, path string, lim jsonl.TailLimits) (agent.Usage, error) {
	return Usage(open, path, lim)
}

// Recent implements agent.Agent.
func (*Agent) Recent(open jsonl.Opener, path string, lim jsonl.TailLimits, n int) (agent.Recent, error) {
	return Recent(open, path, lim, n)
}

// Resume implements agent.Agent: `codex resume ID`; `codex fork ID`
// branches (0.171).
func (*Agent) Resume(id, _ string, fork bool) ([]string, bool) {
	if fork {
		return []string{"codex", "fork", id}, true
	}
	return []string{"codex", "resume", id}, true
}

// Capabilities implements agent.Agent.
func (*Agent) Capabilities() agent.Capabilities {
	return agent.Capabilities{Fork: true}
}

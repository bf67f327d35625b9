package claude

import (
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// Agent is Claude Code behind tether's agent interface, bound to one
// config dir.
type Agent struct {
	dir string
}

// New is Claude Code reading configDir ($CLAUDE_CONFIG_DIR or ~/.claude).
func New(configDir string) *Agent { return &Agent{dir: configDir} }

var _ agent.Agent = (*Agent)(nil)

// Name implements agent.Agent.
func (*Agent) Name() string { return agent.Claude }

// Command implements agent.Agent.
func (*Agent) Command() string { return "claude" }

// Home implements agent.Agent.
func (a *Agent) Home() string { return a.dir }

// FindTranscript implements agent.Files. Claude Code has no archive of its
// own: archived changes nothing.
func (a *Agent) FindTranscript(id string, _ bool) string {
	path, _ := FindTranscript(a.dir, id)
	return path
}

// At implements agent.Agent.
func (*Agent) At(home string) agent.Agent { return New(home) }

// Head implements agent.Files.
func (*Agent) Head(path string) (string, bool) { return Head(path) }

// NewestSession implements agent.Files.
func (a *Agent) NewestSession(since time.Time) string { return NewestSession(a.dir, since) }

// SessionGlobs implements agent.Files.
func (*Agent) SessionGlobs(root, prefix string) []string {
	return []string{filepath.Join(ProjectsDir(root), "*", prefix+"*.jsonl")}
}

// SessionIDOf implements agent.Files.
func (*Agent) SessionIDOf(path string) string {
	if !IsSessionFile(filepath.Base(path)) {
		return ""
	}
	return SessionID(path)
}

// LoadFailed implements agent.Failures.
func (*Agent) LoadFailed(stderr []byte, id string) bool { return LoadFailed(stderr, id) }

// ResumeFailure implements agent.Failures: the API's refusal of the
// history as too long, or of tool blocks that do not pair up.
func (*Agent) ResumeFailure(appended []byte) agent.Failure {
	if _, _, tooLong, _ := LastError(appended); tooLong {
		return agent.FailureTooLong
	}
	if ToolPairingError(LastMainRecord(appended)) {
		return agent.FailureToolPairing
	}
	return agent.FailureNone
}

// Live implements agent.Agent.
func (a *Agent) Live(id, path string) agent.Liveness {
	l := Live(a.dir, id, path)
	return agent.Liveness{PID: l.PID, Reason: l.Reason, Possible: l.Possible}
}

// Usage implements agent.Agent.
func (*Agent) Usage(open jsonl.Opener, path string, lim jsonl.TailLimits) (agent.Usage, error) {
	return Usage(open, path, lim)
}

// Recent implements agent.Agent.
func (*Agent) Recent(open jsonl.Opener, path string, lim jsonl.TailLimits, n int) (agent.Recent, error) {
	return Recent(open, path, lim, n)
}

// Resume implements agent.Agent: `claude --resume ID`, with
// --fork-session to branch.
func (*Agent) Resume(id, _ string, fork bool) ([]string, bool) {
	argv := []string{"claude", "--resume", id}
	if fork {
		argv = append(argv, "--fork-session")
	}
	return argv, true
}

// Capabilities implements agent.Agent.
func (*Agent) Capabilities() agent.Capabilities {
	return agent.Capabilities{Trim: true, Fork: true, StartNotice: true, SystemPrompt: true}
}

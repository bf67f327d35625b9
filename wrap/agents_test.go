package wrap

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
)

// harness names the wrapped agent in the tests' tables.
type harness string

const (
	Claude harness = "claude"
	Codex  harness = "codex"
)

// agentFor is the agent h names, reading its data root dir.
func agentFor(h harness, dir string) agent.Agent {
	if h == Codex {
		return codex.New(dir)
	}
	return claude.New(dir)
}

// resetName is the reset marker's name the binaries use (Claude Code's
// project directory name of the root).
func resetName(root string) string {
	name, _ := claude.ProjectDirName(root)
	return name
}

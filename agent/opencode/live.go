package opencode

import (
	"path/filepath"

	"github.com/tether-dev/tether/agent"
)

// Live implements agent.Agent. OpenCode leaves no pid, lock or port file
// per session: a session runs while an opencode process was started on
// it (-s/--session ID on its command line). One started with -c, or on
// a new session, cannot be tied to an id and is not reported.
func (a *Agent) Live(id, _ string) agent.Liveness {
	if id == "" {
		return agent.Liveness{}
	}
	for _, pid := range a.Proc.PIDs() {
		argv := a.Proc.Argv(pid)
		if len(argv) == 0 || !isOpenCode(argv[0], a.Proc.Exe(pid)) {
			continue
		}
		if r := a.ParseResume(argv[1:]); r.Kind == "id" && r.ID == id {
			return agent.Liveness{PID: pid, Reason: "an opencode process runs it"}
		}
	}
	return agent.Liveness{}
}

// isOpenCode reports whether a process is OpenCode's executable (a Bun
// binary named opencode; the npm launcher is a script of that name).
func isOpenCode(arg0, exe string) bool {
	return filepath.Base(arg0) == "opencode" || filepath.Base(exe) == "opencode"
}

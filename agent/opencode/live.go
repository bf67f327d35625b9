package opencode

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Live implements agent.Agent: the session's directory is not known here
// (no transcript path says it), so only a process started on the id is
// tied to it (LiveAt).
func (a *Agent) Live(id, _ string) agent.Liveness { return a.LiveAt(id, "", time.Time{}) }

// LiveAt reports whether session id, recorded in dir and last updated at
// updated, runs (LiveIn of the processes running now).
func (a *Agent) LiveAt(id, dir string, updated time.Time) agent.Liveness {
	if id == "" {
		return agent.Liveness{}
	}
	return LiveIn(a.Processes(), id, dir, updated)
}

// Process is an opencode process that runs a session: the TUI or `run`.
type Process struct {
	PID int
	// ID is the session it was started on ("": -c, or a new session).
	ID string
	// Dir is the directory it works in; Start when it started (zero:
	// unknown).
	Dir   string
	Start time.Time
}

// Processes are the opencode processes that run a session, from one walk
// of the process table (a listing asks once for all its sessions).
func (a *Agent) Processes() []Process {
	var out []Process
	for _, pid := range a.Proc.PIDs() {
		argv := a.Proc.Argv(pid)
		if len(argv) == 0 || !isOpenCode(argv[0], a.Proc.Exe(pid)) {
			continue
		}
		p := readCommand(argv[1:])
		if !p.session {
			continue // serve, export, session list…: no session of its own
		}
		pr := Process{PID: pid, ID: p.id}
		if p.id == "" {
			pr.Dir, pr.Start = p.dir(a.Proc.Cwd(pid)), a.Proc.StartTime(pid)
		}
		out = append(out, pr)
	}
	return out
}

// LiveIn reports whether session id, recorded in dir and last updated at
// updated, runs in one of procs. OpenCode leaves no pid, lock or port
// file per session:
//
//   - a process started on the id (-s/--session ID) runs it for certain;
//   - one started with -c (the newest session of its project, which only
//     the database says) or on a new session (whose id is only in the
//     database), or whose TUI switched sessions, may run any session of
//     its directory: it is reported as Possible when it runs in dir and
//     the session was updated since it started. One elsewhere, or started
//     after the session's last update, is not.
//
// dir "" or updated zero: only the first rule applies.
func LiveIn(procs []Process, id, dir string, updated time.Time) agent.Liveness {
	possible := 0
	for _, p := range procs {
		switch {
		case p.ID == id:
			return agent.Liveness{PID: p.PID, Reason: fmt.Sprintf("opencode process %d was started on it", p.PID)}
		case p.ID != "" || possible != 0 || dir == "" || updated.IsZero():
			continue
		}
		if !p.Start.IsZero() && !updated.Before(p.Start) && sameDir(p.Dir, dir) {
			possible = p.PID
		}
	}
	if possible == 0 {
		return agent.Liveness{}
	}
	return agent.Liveness{PID: possible, Possible: true, Reason: fmt.Sprintf(
		"opencode process %d runs in its directory and it was updated since that process started", possible)}
}

// command is what an opencode command line says of the session it runs.
type command struct {
	// session: the TUI or `run`, which run a session (the other
	// subcommands do not).
	session bool
	// id is -s/--session ID ("": -c or a new session, which --fork
	// of an id makes too).
	id string
	// project is the TUI's positional directory or run's --dir.
	project string
}

// valueFlags are opencode's global and run flags that take a value: the
// word after one is not the subcommand.
var valueFlags = map[string]bool{"--log-level": true, "--port": true, "--hostname": true, "--mdns-domain": true,
	"--cors": true, "-m": true, "--model": true, "-s": true, "--session": true, "--prompt": true, "--agent": true,
	"--replay-limit": true, "--dir": true, "--format": true, "--title": true, "--file": true, "-f": true,
	"--attach": true, "--variant": true, "--command": true, "--password": true, "-p": true, "-u": true, "--username": true}

// readCommand reads argv (without argv[0]) as opencode does: the first
// word that is no flag's value is a subcommand or, for the TUI, its
// project directory.
func readCommand(args []string) command {
	var c command
	positional, fork := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case name == "-s" || name == "--session":
			if hasValue {
				c.id = value
			} else if i+1 < len(args) {
				c.id = args[i+1]
			}
		case a == "--fork":
			fork = true
		case name == "--dir" && c.project == "":
			if hasValue {
				c.project = value
			} else if i+1 < len(args) {
				c.project = args[i+1]
			}
		case positional == "" && !strings.HasPrefix(a, "-"):
			positional = a
			continue
		}
		if valueFlags[name] && !hasValue {
			i++
		}
	}
	if fork {
		c.id = ""
	}
	switch {
	case positional == "run":
		c.session = true
	case positional == "" || !subcommands[positional]:
		c.session = true
		if positional != "" {
			c.project = positional
		}
	}
	return c
}

// subcommands are opencode 1.18.33's commands other than the TUI (whose
// positional word is a directory) and run.
var subcommands = map[string]bool{"completion": true, "acp": true, "mcp": true, "attach": true, "debug": true,
	"providers": true, "auth": true, "agent": true, "upgrade": true, "uninstall": true, "serve": true, "web": true,
	"models": true, "stats": true, "export": true, "import": true, "github": true, "pr": true, "session": true,
	"plugin": true, "plug": true, "db": true}

// dir is the directory the process works in: its project, relative to
// its cwd, or the cwd.
func (c command) dir(cwd string) string {
	switch {
	case c.project == "":
		return cwd
	case filepath.IsAbs(c.project) || cwd == "":
		return c.project
	}
	return filepath.Join(cwd, c.project)
}

// sameDir reports whether a process's directory (as /proc resolves it) is
// the session's; the session's is resolved only when the spellings
// differ.
func sameDir(proc, session string) bool {
	if proc == "" || session == "" {
		return false
	}
	proc, session = filepath.Clean(proc), filepath.Clean(session)
	if proc == session {
		return true
	}
	rp, err1 := filepath.EvalSymlinks(proc)
	rs, err2 := filepath.EvalSymlinks(session)
	return err1 == nil && err2 == nil && rp == rs
}

// isOpenCode reports whether a process is OpenCode's executable (a Bun
// binary named opencode; the npm launcher is a script of that name).
func isOpenCode(arg0, exe string) bool {
	return filepath.Base(arg0) == "opencode" || filepath.Base(exe) == "opencode"
}

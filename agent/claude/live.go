package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/procfs"
)

// DefaultRecent is how recently a transcript must have been written to
// count as possibly live when its process cannot be told apart.
const DefaultRecent = 2 * time.Minute

// LiveOptions tune the live check; the zero value inspects this machine.
type LiveOptions struct {
	Proc  procfs.FS
	Alive func(pid int) bool // nil: Alive
	Now   func() time.Time   // nil: time.Now
	// Recent is the write window of a possibly live session (0: DefaultRecent).
	Recent time.Duration
	// Self is a pid never counted (0: this process): the wrapper's own
	// argv names the session it is about to resume.
	Self int
}

// Liveness says whether a session is (or may be) running, and why.
type Liveness struct {
	PID    int    // the process, when one is known
	Reason string // "" when nothing suggests it runs
	// Possible: no process could be tied to the session for certain, but a
	// Claude Code process runs in its project and the transcript was
	// written since it started or within LiveOptions.Recent (Claude Code
	// 2.0.x leaves no sessions/<pid>.json and rewrites its argv).
	Possible bool
	// Session is the sessions/<pid>.json naming it (Claude Code 2.1), if any.
	Session *LiveSession
}

// Live reports whether the check found anything.
func (l Liveness) Live() bool { return l.Reason != "" }

// LiveSet is one look at the machine's Claude Code processes, checked
// against as many sessions as needed (the catalog checks all of them).
type LiveSet struct {
	configDir string
	// resolvedConfig is configDir with symlinks resolved, when needed.
	resolvedConfig string
	opts           LiveOptions
	pidFiles       map[string]LiveSession
	procs          []claudeProc
	// withPidFile are the processes that wrote a sessions/<pid>.json
	// (Claude Code 2.1): that file says which session each runs, so the
	// 2.0 guess from the working directory is never made for them.
	withPidFile map[int]bool
	procOK      bool
}

type claudeProc struct {
	pid   int
	argv  []string
	cwd   string
	start time.Time
	open  []string // the .jsonl files it holds open (rarely any: the CLI appends and closes)
}

// ScanLive reads sessions/*.json and the Claude Code processes running
// with configDir.
func ScanLive(configDir string, o LiveOptions) *LiveSet {
	if o.Alive == nil {
		o.Alive = Alive
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Recent <= 0 {
		o.Recent = DefaultRecent
	}
	if o.Self == 0 {
		o.Self = os.Getpid()
	}
	s := &LiveSet{configDir: filepath.Clean(configDir), opts: o, pidFiles: LiveSessions(configDir, o.Alive), withPidFile: map[int]bool{}}
	for _, ls := range s.pidFiles {
		s.withPidFile[ls.PID] = true
	}
	pids := o.Proc.PIDs()
	s.procOK = len(pids) > 0 // a readable /proc lists at least this process
	for _, pid := range pids {
		if pid == o.Self {
			continue
		}
		argv := o.Proc.Argv(pid)
		if !isClaudeProcess(argv, func() string { return o.Proc.Exe(pid) }) || !s.sameConfig(pid) {
			continue
		}
		p := claudeProc{pid: pid, argv: argv, cwd: o.Proc.Cwd(pid), start: o.Proc.StartTime(pid)}
		for _, f := range o.Proc.OpenFiles(pid) {
			if strings.HasSuffix(f, ".jsonl") {
				p.open = append(p.open, f)
			}
		}
		s.procs = append(s.procs, p)
	}
	return s
}

// Live checks one session: ScanLive(configDir, LiveOptions{}).Check.
func Live(configDir, sessionID, transcript string) Liveness {
	return ScanLive(configDir, LiveOptions{}).Check(sessionID, transcript)
}

// isClaudeProcess recognises Claude Code: the native binary, node running
// its cli.js, or any process titled "claude" (2.0.x sets process.title,
// which wipes its argv). The executable is read only when argv[0] could
// be one of its names, so a scan costs one read per process.
func isClaudeProcess(argv []string, exe func() string) bool {
	isName := func(p string) bool {
		b := filepath.Base(p)
		return b == "claude" || b == "claude.exe"
	}
	if len(argv) == 0 {
		return false // a kernel thread, or gone
	}
	if isName(argv[0]) {
		return true
	}
	if strings.Contains(strings.ToLower(argv[0]), "claude") {
		if e := exe(); isName(e) || strings.Contains(e, "/claude-code") || strings.Contains(e, "/claude/versions/") {
			return true
		}
	}
	if len(argv) > 1 && (isName(argv[1]) || strings.HasSuffix(argv[1], "claude-code/cli.js")) {
		return true
	}
	return false
}

// sameConfig reports whether process pid uses this config dir; an
// unreadable environment counts as the same (it may be).
func (s *LiveSet) sameConfig(pid int) bool {
	dir, ok := s.opts.Proc.Env(pid, "CLAUDE_CONFIG_DIR")
	if !ok || dir == "" {
		home, ok := s.opts.Proc.Env(pid, "HOME")
		if !ok {
			return true
		}
		dir = filepath.Join(home, ".claude")
	}
	dir = filepath.Clean(dir)
	if dir == s.configDir {
		return true
	}
	// One of them may be a symlink (a dotfiles config dir): a missed live
	// session costs the session, so compare the resolved paths too.
	if s.resolvedConfig == "" {
		s.resolvedConfig = s.configDir
		if r, err := filepath.EvalSymlinks(s.configDir); err == nil {
			s.resolvedConfig = r
		}
	}
	r, err := filepath.EvalSymlinks(dir)
	return err == nil && r == s.resolvedConfig
}

// Check says whether session id (transcript at path) may be running, by
// the strongest evidence found: its sessions/<pid>.json, a process whose
// argv names it or that holds the transcript open, and last a Claude Code
// process in its project while the transcript was written recently. A nil
// set finds nothing. The project is taken from transcript's directory, so
// pass the file itself, not a symlink elsewhere (trim.Target).
func (s *LiveSet) Check(id, transcript string) Liveness {
	if s == nil {
		return Liveness{}
	}
	for _, ls := range s.pidFiles {
		if identity.SameSession(ls.SessionID, id) {
			ls := ls
			return Liveness{PID: ls.PID, Reason: fmt.Sprintf("process %d is running it (sessions/%d.json)", ls.PID, ls.PID), Session: &ls}
		}
	}
	if len(s.procs) == 0 && s.procOK {
		return Liveness{}
	}
	// /proc shows resolved paths; resolve only when it can matter (the
	// catalog checks thousands of sessions).
	target, resolved := transcript, false
	resolve := func() string {
		if !resolved {
			resolved = true
			if t, err := filepath.EvalSymlinks(transcript); err == nil {
				target = t
			}
		}
		return target
	}
	var candidate *claudeProc
	for i := range s.procs {
		p := &s.procs[i]
		switch namesSession(p.argv, id) {
		case 1:
			return Liveness{PID: p.pid, Reason: fmt.Sprintf("Claude Code process %d was started for it", p.pid)}
		case -1:
			continue // started for another session
		}
		for _, f := range p.open {
			if f == transcript || f == resolve() {
				return Liveness{PID: p.pid, Reason: fmt.Sprintf("Claude Code process %d has its transcript open", p.pid)}
			}
		}
		// Only a process that says nothing of its session (2.0.x) is
		// guessed at from its directory: a 2.1 process in the same
		// project runs the session its pid file names, not this one.
		if candidate == nil && !s.withPidFile[p.pid] && p.cwd != "" && MatchesProjectDir(filepath.Base(filepath.Dir(transcript)), p.cwd) {
			candidate = p
		}
	}
	if candidate == nil && s.procOK {
		return Liveness{}
	}
	st, err := os.Stat(transcript)
	if err != nil {
		return Liveness{}
	}
	age := s.opts.Now().Sub(st.ModTime())
	switch {
	case candidate != nil && (age < s.opts.Recent || (!candidate.start.IsZero() && st.ModTime().After(candidate.start))):
		return Liveness{PID: candidate.pid, Possible: true, Reason: fmt.Sprintf(
			"Claude Code process %d runs in its project and the transcript was written %s ago (Claude Code 2.0 leaves no other trace)",
			candidate.pid, age.Round(time.Second))}
	case !s.procOK && age < s.opts.Recent:
		return Liveness{Possible: true, Reason: fmt.Sprintf("its transcript was written %s ago and processes cannot be inspected here", age.Round(time.Second))}
	}
	return Liveness{}
}

// namesSession says whether an argv resumes (or sets) session id (1),
// another session (-1) or does not say (0). A fork writes a new session,
// so it says nothing about the one it forks from.
func namesSession(argv []string, id string) int {
	got := ""
	for i, a := range argv {
		if a == "--fork-session" {
			return 0
		}
		for _, flag := range []string{"--resume", "-r", "--session-id"} {
			if a == flag && i+1 < len(argv) {
				got = argv[i+1]
			} else if v, ok := strings.CutPrefix(a, flag+"="); ok {
				got = v
			}
		}
	}
	switch {
	case got == "" || strings.HasPrefix(got, "-"):
		return 0
	case identity.SameSession(got, id):
		return 1
	}
	return -1
}

// Package wrap runs the real claude, codex or opencode transparently: the identity
// root pinned for everything the agent starts, arguments, terminal, signals
// and exit status passed through untouched, and a resume that fails because
// of the session (missing, empty, too large) followed by one fresh start
// with a clear notice instead of leaving the user stuck.
package wrap

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/state"
)

// Options configure one wrapped run.
type Options struct {
	// Agent is the wrapped agent, bound to its data root (where
	// transcripts are looked up).
	Agent       agent.Agent
	Bin         string   // the real binary
	Args        []string // passed through untouched
	Root        identity.Root
	Env         []string // the environment to extend (os.Environ())
	Interactive bool
	// Stdin is the wrapper's standard input when it is not a terminal
	// (nil: it is one, or the child reads it directly). A run of an agent
	// that compacts itself, resumed by id without a terminal (opencode run
	// -s ID, its prompt piped in), reads it up to maxReplay bytes before
	// the child starts, so a retry can send the prompt again (replay.go).
	Stdin io.Reader
	// StderrTTY is set when standard error is a terminal: the child then
	// gets it untouched, and the wrapper cannot read an agent's message
	// for a session it could not load (a pipe in place of the terminal
	// would change what the agent draws). Otherwise a resume by id's
	// stderr passes through a copy that keeps its last few KiB.
	StderrTTY bool
	Exec      ExecFunc
	Log       *eventlog.Log
	Stderr    io.Writer
	// Abbrev names a session in messages by its shortest unique prefix
	// among the known ids and those in dir (nil: identity.ShortID).
	Abbrev func(id, dir string) string
	// Stdout is where the child's output ends up (nil: the wrapper's own
	// standard output, inherited).
	Stdout io.Writer
	Now    func() time.Time

	// Resume preflight (resumes by id of an agent tether can trim).
	// StateDir holds the hooks' session state and reset markers.
	StateDir string
	// ResetName is the name of root's reset marker (state.ResetPath);
	// nil: no reset marker is looked for.
	ResetName func(root string) string
	// Threshold is the context use, in percent of the window, at or above
	// which Policy applies; 0 turns the size check off.
	Threshold float64
	// Policy is PolicyTrim (trim to FitPercent, default 60, then resume)
	// or PolicyFresh (start a new session instead).
	Policy      string
	FitPercent  float64
	Windows     agent.Windows
	DisableTrim bool
	// FitTrim trims a transcript in place to percent of window (a
	// backup kept) and returns the trim's log record; ResetNoted reads the
	// project's notes for a RESET: TRUE. Both are trim's (trim.FitFile,
	// trim.ResetNoted), passed in so the wrapper does not depend on the
	// trimmer. nil FitTrim: no trimming; nil ResetNoted: no notes.
	FitTrim    func(path string, percent float64, window int64) (eventlog.TrimDone, error)
	ResetNoted func(root string) bool
	// Force resumes a session even when another process runs it.
	Force bool
	// Handoff, when set, summarises the session that could not be resumed
	// (from its transcript) for the fresh one, given through the agent's
	// system prompt (only an agent whose Capabilities have SystemPrompt).
	// "" means nothing worth passing on.
	Handoff func(transcript, reason string) string
	// Archive, when set, is tether's archive: a transcript that is gone is
	// restored from it before a resume by id.
	Archive *archive.Store
	// Names, when set, lists the sessions tether knows by title (the
	// completion index), so --resume TITLE resumes the one it names
	// (harness: the agent's name).
	Names func(harness string) []Named
	// Finder is the agent's session reader, for an agent whose sessions
	// are rows of a database (Capabilities.Database): a session resumed
	// by id is looked up there (nil, as in tether-hot: it is not).
	Finder agent.Finder

	// noRetry is set when the command's input could not be kept for a
	// retry (keepStdin).
	noRetry bool
}

// Run runs the wrapped program and returns the exit status to leave with.
func Run(o Options) (int, error) {
	if o.Exec == nil {
		o.Exec = Exec
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	harness := o.Agent.Name()
	root := o.Root
	o, res, err := o.expandResume(o.Agent.ParseResume(o.Args))
	if err != nil {
		return 0, err
	}
	dir := startDir(root)
	o = o.keepStdin(res)

	var tr transcript
	var st stored
	if res.Kind == "id" && o.Agent.Capabilities().Database {
		st = o.lookup(res.ID)
		root = o.inItsDirectory(res.ID, st, root)
		dir = startDir(root)
	} else if res.Kind == "id" {
		tr = o.findTranscript(res.ID)
		if tr.path == "" && looksLikeID(res.ID) {
			var err error
			if tr, err = o.restoreFromArchive(o.log(harness, root.Path), res.ID); err != nil {
				return 0, err
			}
		}
		// A session filed under another spelling of the directory resumes
		// from the directory it recorded, so it stays one session.
		if tr.cwd != "" {
			if rec := identity.Resolve(tr.cwd); rec.Path != root.Path && !rec.FellBack {
				o.log(harness, rec.Path).Info(eventlog.ResumeCwdRepair, res.ID,
					slog.String("from", root.Path), slog.String("to", rec.Path), slog.String("transcript", tr.path))
				root, dir = rec, startDir(rec)
			}
		}
	}
	log := o.log(harness, root.Path)
	env := withPWD(setEnv(o.Env, identity.EnvRoot, root.Path), dir)
	// A new session's id is not known yet: spawn has none, end gets the
	// one the hooks recorded while it ran.
	sid := res.ID
	started := o.Now()
	log.Info(eventlog.Spawn, sid, slog.String("cwd", dir), slog.String("resume", res.Kind), slog.Bool("fork", res.Fork),
		slog.Bool("print", res.Print), slog.String("bin", o.Bin))

	child := Child{Path: o.Bin, Args: o.Args, Dir: dir, Env: env, Interactive: o.Interactive}
	// Only a resume by id can be checked: a title or the picker is the
	// agent's to resolve. A database's sessions have no titles.
	checkable := res.Kind == "id" && (looksLikeID(res.ID) || st.db)
	if checkable {
		reason, err := o.resumable(log, res.ID, tr, st)
		if err != nil {
			return 0, err
		}
		if reason != "" {
			return o.fallback(log, res, child, tr, reason, -1)
		}
		if o.Agent.Capabilities().Trim {
			reason, err := o.preflight(log, res.ID, tr, root.Path)
			if err != nil {
				log.Warn(eventlog.ResumeRefused, res.ID, slog.String("reason", err.Error()))
				return 0, err
			}
			if reason != "" {
				return o.fallback(log, res, child, tr, reason, -1)
			}
			tr = tr.restat() // a trim changed its size
		}
	}
	out := o.newAttemptOutput(res)
	var said *tailBuffer
	if checkable {
		child.Stdout = out.writer()
		child.Stderr, said = o.observeStderr()
	}
	if tr.restored != "" {
		o.leaveNotice(root.Path, res.ID, restoredNotice(res.ID, tr.restored))
	}
	var sig userSignal
	child.OnSignal = sig.set
	code, err := o.Exec(child)
	if tr.restored != "" {
		o.noticeAgain(root.Path, res, restoredNotice(res.ID, tr.restored))
	}
	if err != nil {
		return code, fmt.Errorf("run %s: %w", o.Bin, err)
	}
	// An agent that compacts itself failed to (compactor.go).
	if code != 0 && code < 128 && sig.get() == nil {
		if retried, done, err := o.compactorRetry(log, res, child); done {
			log.Info(eventlog.End, sid, slog.Int("exit_code", retried))
			return retried, err
		}
	}
	// A status over 128 is a signal, and a signal the wrapper received
	// (and passed on) is the user ending the run: neither is ever the
	// session's fault, so the run ends with the child's status.
	if checkable && code != 0 && code < 128 && sig.get() == nil {
		reason, after := o.loadFailure(res.ID, said.bytes()), tr.restat()
		if reason == "" {
			reason, after = o.resumeFailure(res.ID, tr)
		}
		if reason != "" {
			out.withhold(log, res.ID)
			if reason == reasonTooLong {
				retried, tried, done, err := o.retryTrimmed(log, res, child, out)
				if done {
					log.Info(eventlog.End, sid, slog.Int("exit_code", retried))
					return retried, err
				}
				if tried {
					reason += ", even after trimming"
				}
				after = o.findTranscript(res.ID)
			}
			o.markStale(res.ID, after.path, reason)
			return o.fallback(log, res, child, tr, reason, code)
		}
	}
	out.release()
	if sid == "" {
		sid = o.sessionSince(root.Path, started)
	}
	log.Info(eventlog.End, sid, slog.Int("exit_code", code))
	return code, nil
}

// sessionSince is the session the hooks saw in root since start, or "".
// Two new sessions started in one directory at once may be told apart
// wrongly; the hooks' own records always have the right id.
func (o Options) sessionSince(root string, start time.Time) string {
	if o.StateDir == "" {
		return ""
	}
	st, err := state.LatestForRoot(o.StateDir, root)
	if err != nil || st.Updated.Before(start.Add(-time.Second)) {
		return ""
	}
	return st.SessionID
}

// fallback logs why the resume cannot go on and starts one fresh session.
func (o Options) fallback(log *eventlog.Log, res agent.ResumeArgs, child Child, tr transcript, reason string, code int) (int, error) {
	log.Warn(eventlog.ResumeFailure, res.ID, slog.String("reason", reason), slog.Int("exit_code", code),
		slog.String("cwd", child.Dir), slog.String("transcript", tr.path), slog.Int64("size", tr.size))
	notice := o.fallbackNotice(res.ID, reason, child.Dir, tr)
	fmt.Fprintln(o.Stderr, termsafe.String(notice))
	root := lastEnv(child.Env, identity.EnvRoot)
	o.leaveNotice(root, "", notice)
	started := o.Now()
	child.Args = res.Fresh
	child.Stdout, child.Stderr, child.OnSignal = o.Stdout, nil, nil
	handoff := false
	if o.Handoff != nil && o.Agent.Capabilities().SystemPrompt && tr.path != "" && tr.size > 0 {
		if text := o.Handoff(tr.path, reason); text != "" {
			child.Args = o.Agent.AppendSystemPrompt(child.Args, text)
			handoff = true
		}
	}
	fresh, err := o.Exec(child)
	o.noticeAgain(root, res, notice)
	if err != nil {
		return fresh, fmt.Errorf("run %s: %w", o.Bin, err)
	}
	newID := o.newestSession(started)
	log.Warn(eventlog.FreshFallback, res.ID, slog.String("new_session_id", newID), slog.String("reason", reason),
		slog.Int("exit_code", fresh), slog.Bool("handoff", handoff))
	return fresh, nil
}

func (o Options) log(harness, root string) *eventlog.Log {
	if o.Log == nil {
		return nil
	}
	return o.Log.With(harness, root)
}

// startDir is where the child starts: the root's on-disk spelling, so the
// agent files its sessions under one name; the current directory when the
// root could not be resolved.
func startDir(r identity.Root) string {
	if r.FellBack || r.Dir == "" {
		return ""
	}
	if st, err := os.Stat(r.Dir); err != nil || !st.IsDir() {
		return ""
	}
	return r.Dir
}

func setEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// withPWD is env with PWD=dir when its PWD names another directory (the
// child starts elsewhere than the wrapper: a session resumed in the
// directory it recorded). os/exec does the same for a child given a
// directory and no environment; a program may take its directory from
// PWD rather than from getcwd (OpenCode 1.18.33 does, and resumed with a
// stale one never exits). A PWD that is a symlinked spelling of dir
// stays.
func withPWD(env []string, dir string) []string {
	if dir == "" {
		return env
	}
	if pwd := lastEnv(env, "PWD"); pwd != "" {
		a, err1 := filepath.EvalSymlinks(pwd)
		b, err2 := filepath.EvalSymlinks(dir)
		if err1 == nil && err2 == nil && a == b {
			return env
		}
	}
	return setEnv(env, "PWD", dir)
}

// looksLikeID reports whether a --resume value is a session id (a UUID),
// not a title that only the agent can look up.
func looksLikeID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

package agent

import (
	"time"

	"github.com/tether-dev/tether/agent/jsonl"
)

// Agent is one coding agent: everything tether knows of it that is not a
// feature of tether's own. Each implementation is one package under
// agent/ (agent/claude, agent/codex, agent/opencode), with its session
// reader (an agent.Lister) in a package beside it that only tether links;
// feature packages (catalog, hooks, wrap, picker, searchindex, summarize,
// archive, state) see agents only through this interface, and the
// registries are built where the binaries are assembled: one line in
// hot.AgentsAt (both binaries) and one in sessionAgents (tether's catalog).
//
// An Agent value is bound to one data root (Home): constructing one reads
// nothing, so a hook can build the registry within its budget.
type Agent interface {
	// Name is the harness name tether logs, stores and prints (Claude,
	// Codex).
	Name() string
	// Command is the program a user types, and tether wraps ("claude").
	Command() string
	// Home is the data root this value reads ($CLAUDE_CONFIG_DIR,
	// $CODEX_HOME, or their defaults).
	Home() string
	// At is the same agent reading another data root laid out as Home
	// is (tether's archive keeps such a copy).
	At(home string) Agent

	Files
	Failures
	CLI
	Hooks

	// Live reports whether session id (its transcript at path) is being
	// run by the agent right now.
	Live(id, path string) Liveness
	// Usage is the context in use after the last turn, from a bounded tail
	// read of the transcript at path.
	Usage(open jsonl.Opener, path string, lim jsonl.TailLimits) (Usage, error)
	// Recent is the end of the transcript at path: its last n tool calls
	// and the assistant's last text.
	Recent(open jsonl.Opener, path string, lim jsonl.TailLimits, n int) (Recent, error)
	// Resume is the agent's own command that continues session id in dir
	// (with fork, one that branches a new session from it), and whether
	// the agent can do that at all.
	Resume(id, dir string, fork bool) (argv []string, ok bool)
	// Capabilities says what of tether's features apply to this agent.
	Capabilities() Capabilities
}

// Files is where an agent keeps its sessions.
type Files interface {
	// FindTranscript is the transcript of session id under Home ("" when
	// there is none); archived includes the agent's own archive.
	FindTranscript(id string, archived bool) string
	// Head reads the start of a transcript: the directory it was recorded
	// in, and whether its first record parses.
	Head(path string) (cwd string, valid bool)
	// NewestSession is the id of the session whose transcript was modified
	// last, at or after since ("" when none was).
	NewestSession(since time.Time) string
	// SessionGlobs are the glob patterns under root (Home, or the
	// archive's copy of it) that match the transcripts of ids starting
	// with prefix; SessionIDOf decides which matches are transcripts.
	SessionGlobs(root, prefix string) []string
	// SessionIDOf is the id of the transcript at path, or "" when path is
	// not one of the agent's transcripts.
	SessionIDOf(path string) string
}

// Failures recognises, from the agent's own output, a resume the session
// was the cause of. Anything not recognised is the agent's to report.
type Failures interface {
	// LoadFailed reports whether the agent's stderr says it could not load
	// session id.
	LoadFailed(stderr []byte, id string) bool
	// ResumeFailure reads what a failed resume appended to the transcript
	// and names the cause when the session is one (FailureNone otherwise).
	ResumeFailure(appended []byte) Failure
}

// Failure is why a resume failed when the session was the cause.
type Failure int

// The failures a resume can have that are the session's.
const (
	FailureNone Failure = iota
	// FailureTooLong: the API refused the history as too long.
	FailureTooLong
	// FailureToolPairing: the API refused the history because its tool
	// calls and results do not pair up.
	FailureToolPairing
	// FailureContextExceeded: the context window overflowed.
	FailureContextExceeded
)

// Liveness is what a running check found for one session.
type Liveness struct {
	PID    int    // the process, when one is known
	Reason string // "" when nothing suggests it runs
	// Possible: no process could be tied to the session for certain, but
	// one of the agent's processes may be running it.
	Possible bool
}

// Live reports whether the check found anything.
func (l Liveness) Live() bool { return l.Reason != "" }

// Capabilities are the features of tether that apply to an agent.
type Capabilities struct {
	// Trim: tether can trim its transcripts (trim/), so the wrapper's
	// preflight before a resume by id applies (a running session
	// refused, a reset marker taken, one over the threshold trimmed),
	// and a resume refused as too long is trimmed and tried again.
	Trim bool
	// Fork: its resume command can branch a session.
	Fork bool
	// StartNotice: its session-start hook can show a notice the wrapper
	// left (the fresh-start fallback's).
	StartNotice bool
	// SystemPrompt: its command line can add to a session's system
	// prompt (CLI.AppendSystemPrompt), for the wrapper's handoff and
	// self-report.
	SystemPrompt bool
	// Database: its sessions are rows of a database, not transcript
	// files, read by its Lister's reader (an agent.Finder), which only
	// tether links: the wrapper looks a resumed session up through that
	// reader, so tether-hot leaves the agent's runs to tether.
	Database bool
}

// Lister is an Agent whose sessions tether's catalog lists, shows and
// searches. Its reader is a package of its own beside the agent's
// (agent/claude/claudesessions, agent/codex/codexsessions): only tether
// links the readers, so tether-hot's agents stay the plain ones and it
// still starts in the time of an empty Go program.
type Lister interface {
	Agent
	// Sessions is a reader of the sessions under Home (or, with
	// cfg.Open set to the archive's opener, of tether's archived copies
	// of them).
	Sessions(cfg ReaderConfig) Reader
}

// ReaderConfig is what a session reader is given.
type ReaderConfig struct {
	// CachePath is the reader's cache file ("": no cache).
	CachePath string
	// UsageOnly: the reader only counts usage (UsageCounter), so the
	// list's cache at CachePath is not loaded, only the usage cache
	// beside it (the list's is read whole: ~250 KiB at 500 sessions,
	// most of what a report read after an append besides its own).
	UsageOnly bool
	// Open opens the transcripts (nil: the file system).
	Open Opener
	// Windows gives a model's context window.
	Windows Windows
	// WorkRules find work references in a full read (nil: the defaults).
	WorkRules []WorkRule
	// Counts gives the message counts a list cannot compute cheaply
	// (nil: such counts stay unknown).
	Counts CountIndex
	// Now is the clock of the directory skip (nil: time.Now).
	Now func() time.Time
	// HeadBytes and TailBytes bound what a list reads per transcript (0:
	// the defaults).
	HeadBytes, TailBytes int64
}

// Registry is the agents a binary knows, in the order they are listed.
type Registry []Agent

// Get is the agent named name (a harness name or its command), or nil.
func (r Registry) Get(name string) Agent {
	for _, a := range r {
		if a.Name() == name || a.Command() == name {
			return a
		}
	}
	return nil
}

// Names are the harness names, in order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, a := range r {
		out[i] = a.Name()
	}
	return out
}

package wrap

import (
	"os"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// transcript is what the wrapper knows of a session's file before the run.
type transcript struct {
	path string
	size int64
	cwd  string
	// valid is set when the head holds at least one JSON record.
	valid bool
	// restored is where the archive put the transcript back for this
	// run ("" when it did not).
	restored string
}

// tailLimit bounds how much of what a run appended is read to tell why it
// failed; the error record is the last one written.
const tailLimit = 256 << 10

// findTranscript looks the session's file up (once per run: later checks
// re-stat the path it found) and reads its head.
func (o Options) findTranscript(id string) transcript {
	var t transcript
	// The agent's own archive counts: a session archived there resumes.
	t.path = o.Agent.FindTranscript(id, true)
	if t.path != "" {
		t.cwd, t.valid = o.Agent.Head(t.path)
		t = t.restat()
	}
	return t
}

// restat refreshes the size of a transcript already found (a trim or a
// run changed it); the path is "" when the file is gone.
func (t transcript) restat() transcript {
	st, err := os.Stat(t.path)
	if err != nil || !st.Mode().IsRegular() {
		return transcript{}
	}
	t.size = st.Size()
	return t
}

// unusable says why a transcript cannot be resumed at all, or "".
func (t transcript) unusable() string {
	switch {
	case t.path == "":
		return "session not found"
	case t.size == 0:
		return "transcript is empty"
	case !t.valid:
		return "transcript is corrupt"
	}
	return ""
}

// resumeFailure decides, after a resume exited non-zero, whether the
// session was the cause, from what the run appended to the transcript:
// the API refused the history as too long or for tool blocks that do not
// pair up, or the context window overflowed (as the agent's
// Failures.ResumeFailure recognises them). Anything
// else (a mistyped flag, no prompt, a bad key, the network) is the
// agent's to report and returns "". A session the agent could not load at
// all appends nothing: only the agent's own message says so (see
// loadFailure).
func (o Options) resumeFailure(id string, before transcript) (string, transcript) {
	after := before
	if after.path != "" {
		after = after.restat()
	}
	if after.path == "" {
		after = o.findTranscript(id)
	}
	if after.path == "" || after.size <= before.size {
		return "", after
	}
	appended := jsonl.Range(after.path, before.size, after.size, tailLimit)
	switch o.Agent.ResumeFailure(appended) {
	case agent.FailureTooLong:
		return reasonTooLong, after
	case agent.FailureToolPairing:
		return reasonToolPairing, after
	case agent.FailureContextExceeded:
		return "context window exceeded", after
	}
	return "", after
}

// reasonToolPairing is a resume the API refused because the history's
// tool_use and tool_result blocks do not pair up: every resume of the
// same history fails the same way.
const reasonToolPairing = "the API refused its tool history"

// reasonNotLoaded is a resume the agent itself said it could not load.
const reasonNotLoaded = "the agent could not load the session"

// loadFailure is reasonNotLoaded when what the resume printed on stderr
// holds the agent's own message for a session it could not load, and ""
// otherwise (nothing seen: stderr is a terminal and was not read).
func (o Options) loadFailure(id string, stderr []byte) string {
	if len(stderr) == 0 {
		return ""
	}
	if o.Agent.LoadFailed(stderr, id) {
		return reasonNotLoaded
	}
	return ""
}

// newestSession finds the session a fresh start created: the transcript
// modified last since started. "" when there is none (yet).
func (o Options) newestSession(started time.Time) string {
	return o.Agent.NewestSession(started.Add(-time.Second))
}

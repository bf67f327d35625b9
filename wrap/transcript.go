package wrap

import (
	"os"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/jsonl"
)

// transcript is what the wrapper knows of a session's file before the run.
type transcript struct {
	path string
	size int64
	cwd  string
	// valid is set when the head holds at least one JSON record.
	valid bool
}

// tailLimit bounds how much of what a run appended is read to tell why it
// failed; the error record is the last one written.
const tailLimit = 256 << 10

// findTranscript looks the session's file up (once per run: later checks
// re-stat the path it found) and reads its head.
func (o Options) findTranscript(id string) transcript {
	var t transcript
	if o.Harness == Codex {
		t.path = codex.FindRollout(o.CodexDir, id, true)
		if t.path != "" {
			t.cwd, t.valid = codex.Head(t.path)
		}
	} else {
		t.path, _ = claude.FindTranscript(o.ClaudeDir, id)
		if t.path != "" {
			t.cwd, t.valid = claude.Head(t.path)
		}
	}
	if t.path != "" {
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

// resumeFailure decides, after a resume exited non-zero, whether the resume
// itself was the cause: the session was not found, the run appended no
// record at all (the agent could not load it), or what it appended ends in
// the context-overflow error. Any other failure (bad key, network, the user
// quitting) is the agent's to report and returns "".
func (o Options) resumeFailure(id string, before transcript) (string, transcript) {
	after := before
	if after.path != "" {
		after = after.restat()
	}
	if after.path == "" {
		after = o.findTranscript(id)
	}
	if after.path == "" {
		return "session not found", after
	}
	if after.size <= before.size {
		return "the agent could not load the session", after
	}
	appended := jsonl.Range(after.path, before.size, after.size, tailLimit)
	if o.Harness == Codex {
		if codex.ContextExceeded(appended) {
			return "context window exceeded", after
		}
		return "", after
	}
	records, _, tooLong, _ := claude.LastError(appended)
	switch {
	case records == 0:
		return "the agent could not load the session", after
	case tooLong:
		return "prompt too long", after
	}
	return "", after
}

// newestSession finds the session a fresh start created: the transcript
// modified last since started. "" when there is none (yet).
func (o Options) newestSession(started time.Time) string {
	since := started.Add(-time.Second)
	if o.Harness == Codex {
		return codex.NewestThread(o.CodexDir, since)
	}
	return claude.NewestSession(o.ClaudeDir, since)
}

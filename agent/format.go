package agent

import (
	"context"
	"io"
)

// Format is what search reads of one agent's transcripts: the searchable
// texts of its records, and its messages counted by the one rule (see
// MessageCount) from the same parse.
type Format interface {
	// RecordTexts returns the searchable texts of one transcript record:
	// titles and human prompts, and with all assistant text and tool
	// calls. With zeroCopy the texts may alias line. With mc set, the
	// record is also counted.
	RecordTexts(line []byte, all, zeroCopy bool, mc *MessageCount) []Text
	// Texts calls fn with the searchable texts of the transcript read
	// from r (positioned at a line start), in file order; see
	// catalog.Texts.
	Texts(r io.Reader, mc *MessageCount, fn func(Text)) (int64, error)
}

// formats are the registered formats by harness name. Written only by
// the readers' package initialisers (RegisterFormat), so read without a
// lock; nil until then, so that package agent has no initialisation work
// of its own (tether-hot links it).
var formats map[string]Format

// RegisterFormat makes f the format of harness's transcripts. The
// agents' session readers call it from their package's init: only a
// binary that links a reader (tether, not tether-hot) knows its format.
func RegisterFormat(harness string, f Format) {
	if formats == nil {
		formats = map[string]Format{}
	}
	formats[harness] = f
}

// FormatOf is the format of harness's transcripts, or nil when no reader
// of it is linked.
func FormatOf(harness string) Format { return formats[harness] }

// SessionTexts is what search reads of an agent that keeps its sessions
// as rows of a database (OpenCode), not one transcript file each: there
// are no lines of a file to give a Format, and a session's Source (the
// database) is every session's. Search reads one session's texts whole,
// again whenever the session's SourceSize or SourceMTime (a stamp the
// reader sets: its last update, its message count) changed.
type SessionTexts interface {
	// SessionTexts calls fn with the searchable texts of session s (its
	// human prompts, and with all its assistant text and tool calls), in
	// order, and counts its messages into mc (when not nil) by the one
	// rule.
	SessionTexts(ctx context.Context, s *Session, all bool, mc *MessageCount, fn func(Text)) error
}

// sessionTexts are the registered SessionTexts by harness name, written
// only by the readers' package initialisers, as formats are.
var sessionTexts map[string]SessionTexts

// RegisterSessionTexts makes t how search reads harness's sessions (an
// agent with no transcript files registers no Format).
func RegisterSessionTexts(harness string, t SessionTexts) {
	if sessionTexts == nil {
		sessionTexts = map[string]SessionTexts{}
	}
	sessionTexts[harness] = t
}

// SessionTextsOf is how search reads harness's sessions, or nil when its
// sessions are transcript files (see FormatOf) or no reader of it is
// linked.
func SessionTextsOf(harness string) SessionTexts { return sessionTexts[harness] }

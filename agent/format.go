package agent

import "io"

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

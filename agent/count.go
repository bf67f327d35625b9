package agent

// MessageCount is a transcript's message count so far: N messages in its
// first Off bytes (whole lines), and Last, what the rule needs to go on
// counting from Off (Claude: a hash of the last assistant message id, as
// the records of one message share it). The zero value counts a file from
// its start.
//
// The rule, the one every count of messages uses (show, list, the search
// index): Claude Code, each main-chain user record and each main-chain
// assistant message (records sharing a message id are one message; API
// errors and synthetic messages are not messages); Codex, each user or
// assistant message response item.
type MessageCount struct {
	N    int
	Off  int64
	Last uint64
}

// CountIndex gives the message counts a list cannot compute from what it
// reads: the search index's, which reads every transcript whole.
type CountIndex interface {
	// Stamp changes whenever the counts may have ("": there are none).
	Stamp() string
	// Load reads the counts; an error (no index, or it is busy) means
	// none now, asked again next time.
	Load() (CountLookup, error)
}

// CountLookup returns the count of the file at path as it was at this
// size and mtime (UnixNano), if it is known.
type CountLookup func(path string, size, mtime int64) (MessageCount, bool)

// TextKind says which part of a session a searchable text comes from.
type TextKind int

// Text kinds, in the order a search weighs them.
const (
	// TextTitle is a title the transcript records (a rename, a generated
	// title, a summary).
	TextTitle TextKind = iota
	// TextPrompt is a human prompt.
	TextPrompt
	// TextAssistant is the assistant's visible text.
	TextAssistant
	// TextTool is a tool call's name and the paths or command it names.
	TextTool
)

// Text is one searchable text of a transcript.
type Text struct {
	Kind TextKind
	Text string
}

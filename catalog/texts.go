package catalog

import (
	"context"
	"fmt"
	"io"

	"github.com/tether-dev/tether/agent"
)

// Texts calls fn with the searchable texts of the transcript of harness
// read from r (positioned anywhere at a line start), in file order. A
// Text's string is only valid during the call (it may alias the read
// buffer): copy what is kept. Only newline-terminated lines are read: a
// line still being written is left for the next call. It returns how many
// bytes of r it consumed, so a caller can resume at that offset when the
// file grows. This is the one place search (streaming or indexed) gets
// text out of a transcript.
func Texts(harness string, r io.Reader, fn func(Text)) (int64, error) {
	return TextsCounted(harness, r, nil, fn)
}

// TextsCounted is Texts that also counts messages into mc (when not
// nil), with the one rule (see MessageCount), from the same parse of
// each line: mc must be the count of the bytes before r's start, and its
// Off moves past the lines read.
func TextsCounted(harness string, r io.Reader, mc *MessageCount, fn func(Text)) (int64, error) {
	f := agent.FormatOf(harness)
	if f == nil {
		return 0, fmt.Errorf("no reader of %s transcripts is linked", harness)
	}
	return f.Texts(r, mc, fn)
}

// Snippet is part of a matching text with the matches located, as the
// search index returns it.
type Snippet struct {
	// Field is where the text is from.
	Field string `json:"field" jsonschema:"enum=title,enum=summary,enum=prompt,enum=assistant,enum=tool"`
	// Text is the excerpt, exactly as indexed ("…" where it was cut).
	Text string `json:"text"`
	// Highlights are the matches: [start, end) byte offsets into Text
	// (UTF-8).
	Highlights [][2]int `json:"highlights"`
}

// SessionTexts calls fn with the searchable texts of s, when its agent
// keeps sessions as rows of a database rather than transcript files (see
// agent.SessionTexts), and counts its messages into mc (when not nil);
// ok is false for an agent whose sessions are files (read them with
// Texts).
func SessionTexts(ctx context.Context, s *Session, all bool, mc *MessageCount, fn func(Text)) (ok bool, err error) {
	t := agent.SessionTextsOf(s.Harness)
	if t == nil {
		return false, nil
	}
	return true, t.SessionTexts(ctx, s, all, mc, fn)
}

package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

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

// Texts calls fn with the searchable texts of the transcript of harness
// read from r (positioned anywhere at a line start), in file order. Only
// newline-terminated lines are read: a line still being written is left
// for the next call. It returns how many bytes of r it consumed, so a
// caller can resume at that offset when the file grows. This is the one
// place search (streaming or indexed) gets text out of a transcript.
func Texts(harness string, r io.Reader, fn func(Text)) (int64, error) {
	var used int64
	err := completeLines(r, func(line []byte, n int) {
		used += int64(n)
		if l := bytes.TrimSpace(line); len(l) > 0 {
			for _, t := range recordTexts(harness, l, true) {
				fn(t)
			}
		}
	})
	return used, err
}

// completeLines calls fn for every newline-terminated line of r with the
// number of bytes it took (newline included); an unterminated last line
// is not reported.
func completeLines(r io.Reader, fn func(line []byte, n int)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line := frag
		if long != nil {
			line, long = append(long, frag...), nil
		}
		fn(line, len(line))
	}
}

// Snippet is part of a matching text with the matches located, as the
// search index returns it.
type Snippet struct {
	// Field is where the text is from.
	Field string `json:"field" jsonschema:"enum=title,enum=prompt,enum=assistant,enum=tool"`
	// Text is the excerpt, exactly as indexed ("…" where it was cut).
	Text string `json:"text"`
	// Highlights are the matches: [start, end) byte offsets into Text
	// (UTF-8).
	Highlights [][2]int `json:"highlights"`
}

package catalog

import (
	"bytes"
	"errors"
	"io"
	"sync"
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
	var used int64
	err := completeLines(r, func(line []byte) {
		used += int64(len(line))
		if l := bytes.TrimSpace(line); len(l) > 0 {
			for _, t := range recordTexts(harness, l, true, true, mc) {
				fn(t)
			}
		}
	})
	if mc != nil {
		mc.Off += used
	}
	return used, err
}

// linePool recycles completeLines' buffers: an index build reads
// thousands of files, and a fresh megabyte each is mostly clearing memory.
var linePool = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// completeLines calls fn for every newline-terminated line of r (newline
// included); an unterminated last line is not reported. Lines are slices
// of one buffer, which grows to the longest line: most of a transcript's
// bytes are long tool-output lines, and copying each out would double
// the work.
func completeLines(r io.Reader, fn func(line []byte)) error {
	bp := linePool.Get().(*[]byte)
	buf := *bp
	defer func() {
		// A buffer grown for one huge record is not kept.
		if cap(buf) <= 16<<20 {
			*bp = buf
			linePool.Put(bp)
		}
	}()
	start, end, scanned := 0, 0, 0
	for {
		for {
			i := bytes.IndexByte(buf[scanned:end], '\n')
			if i < 0 {
				scanned = end
				break
			}
			next := scanned + i + 1
			fn(buf[start:next])
			start, scanned = next, next
		}
		if start > 0 {
			copy(buf, buf[start:end])
			end, scanned, start = end-start, scanned-start, 0
		}
		if end == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		n, err := r.Read(buf[end:])
		end += n
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return nil
			}
			continue
		}
		if err != nil {
			return err
		}
	}
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

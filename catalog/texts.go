package catalog

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
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
	var used int64
	var echo codexEcho
	err := completeLines(r, func(line []byte) {
		used += int64(len(line))
		if l := bytes.TrimSpace(line); len(l) > 0 {
			for _, t := range recordTexts(harness, l, true, true, mc) {
				if harness == Codex && t.Kind == TextPrompt && echo.repeats(l, t.Text) {
					continue
				}
				fn(t)
			}
		}
	})
	if mc != nil {
		mc.Off += used
	}
	return used, err
}

// codexEcho finds the second copy of a Codex prompt: Codex can record a
// prompt twice, as a response_item message and, next, as an event_msg
// user_message (the benchmark corpus does for every prompt; the 0.171.0
// exec sample has only the response_item). Indexed
// twice it is read, tokenized and stored twice and weighs double in
// bm25. A prompt that follows the same text recorded the other way,
// with no prompt between them, is that copy. Only prompt lines, a few,
// have their envelope read again here.
type codexEcho struct {
	text           string // a copy: the line's buffer is reused
	event, pending bool
}

func (e *codexEcho) repeats(line []byte, text string) bool {
	typ, _, _ := codexEnvelope(bytesString(line, true))
	event := typ == "event_msg"
	if e.pending && event != e.event && text == e.text {
		e.pending = false
		return true
	}
	e.text, e.event, e.pending = strings.Clone(text), event, true
	return false
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

package trim

import (
	"bytes"
	"errors"
	"io"
)

// readChunk is the size of one read: large, so a 1 GB transcript takes a
// thousand read calls rather than four thousand.
const readChunk = 1 << 20

// lineReader yields one line at a time with no length limit. Lines are
// returned as views of one buffer that the reads fill directly, so a line
// is copied once (from the kernel), never assembled from pieces; the
// buffer grows only to hold the longest line (plus a read's worth). The
// returned slice is valid until the next call.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int // unread bytes: buf[start:end]
	scanned    int // buf[start:scanned] holds no newline
	err        error
	line       int
}

func newLineReader(r io.Reader) *lineReader { return newLineReaderBuf(r, nil) }

// newLineReaderBuf reads with buf (a previous reader's, see take) as its
// buffer, so the passes of one trim share one buffer of the longest line.
func newLineReaderBuf(r io.Reader, buf []byte) *lineReader {
	return &lineReader{r: r, buf: buf[:cap(buf)]}
}

// take hands the buffer on to the next reader; lr must not be used again.
func (lr *lineReader) take() []byte {
	b := lr.buf
	lr.buf = nil
	return b
}

// next returns the next line without its newline, whether it ended with a
// newline, and io.EOF after the last line.
func (lr *lineReader) next() (line []byte, newline bool, err error) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
			j := lr.scanned + i
			line = lr.buf[lr.start:j]
			lr.start, lr.scanned = j+1, j+1
			lr.line++
			return line, true, nil
		}
		lr.scanned = lr.end
		if lr.err != nil {
			if lr.start < lr.end {
				line = lr.buf[lr.start:lr.end]
				lr.start = lr.end
				lr.line++
				return line, false, nil
			}
			if errors.Is(lr.err, io.EOF) {
				return nil, false, io.EOF
			}
			return nil, false, lr.err
		}
		lr.fill()
	}
}

// fill reads more after the unread bytes, first making room when little
// is left: moving the partial line to the front, or, when it would not
// leave a quarter of a read free, growing the buffer (to 1.25 times what
// it must hold: near the longest line, reached in a few steps).
func (lr *lineReader) fill() {
	if len(lr.buf)-lr.end < readChunk/4 {
		n := lr.end - lr.start
		buf := lr.buf
		if need := n + readChunk/4; need > len(buf) {
			buf = make([]byte, max(need+need/4, readChunk))
		}
		copy(buf, lr.buf[lr.start:lr.end])
		lr.buf = buf
		lr.scanned -= lr.start
		lr.start, lr.end = 0, n
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.err = err
	} else if n == 0 {
		// A reader may return nothing without an error; try once more
		// before treating it as the end (io.Reader allows this, rarely).
		n, err = lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		lr.err = err
	}
}

// reset makes lr read r from its start, keeping the buffer.
func (lr *lineReader) reset(r io.Reader) {
	*lr = lineReader{r: r, buf: lr.buf}
}

// Package scan is the machinery the agents' session readers share, knowing
// no agent's format: bounded head and tail reads of a transcript and its
// lines, the message count carried from one listing to the next, the
// directory skip's rules, the symlink guard of a listing, the values a
// listing's sessions point to handed out in blocks, and titles cut to one
// line.
package scan

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/tether-dev/tether/agent"
)

// BytesString views b as a string without copying when zeroCopy is set
// (the caller guarantees b is not modified while the string is used),
// else copies it.
func BytesString(b []byte, zeroCopy bool) string {
	if !zeroCopy {
		return string(b)
	}
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Default read budgets for List: 128 KiB a file in all. The head needs the
// first records (cwd, first prompt: a 2.1.x transcript writes them before
// its system-prompt and tool-schema snapshots); the tail the last turn's
// records. A file whose head names no cwd, or whose tail holds no usage
// (one huge record at the end), is read again with the Max budgets.
const (
	DefaultHeadBytes = 32 << 10
	DefaultTailBytes = 96 << 10
	MaxHeadBytes     = 128 << 10
	MaxTailBytes     = 256 << 10
)

// Chunks is what a bounded read of a file returns: the head and, when the
// file is larger than both budgets together, a separate tail. Both end
// and (the tail) start on line boundaries.
type Chunks struct {
	Head, Tail []byte
	// RawHead is the head as read, its cut last line included; RawTail
	// is the tail as read, its cut first line included; TailAt is its
	// offset in the file.
	RawHead []byte
	RawTail []byte
	TailAt  int64
	Size    int64
	ModTime time.Time
}

// bufPool recycles read buffers across files: List parses each buffer in
// place and clones what it keeps, so a buffer is free once a file is done.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// ReadHeadTail reads at most headN bytes from the start and tailN bytes
// from the end of the file, into a pooled buffer; call release when done
// with the Chunks.
func ReadHeadTail(f agent.File, headN, tailN int64) (c Chunks, release func(), err error) {
	fi, err := f.Stat()
	if err != nil {
		return Chunks{}, func() {}, err
	}
	c = Chunks{Size: fi.Size(), ModTime: fi.ModTime()}
	n := min(c.Size, headN+tailN)
	bp := bufPool.Get().(*[]byte)
	if int64(cap(*bp)) < n {
		*bp = make([]byte, n)
	}
	buf := (*bp)[:n]
	release = func() { bufPool.Put(bp) }
	if c.Size <= headN+tailN {
		m, err := f.ReadAt(buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return c, release, err
		}
		c.Head = buf[:m]
		c.RawHead = c.Head
		return c, release, nil
	}
	head, tail := buf[:headN], buf[headN:]
	m, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return c, release, err
	}
	head = head[:m]
	c.RawHead = head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	m, err = f.ReadAt(tail, c.Size-tailN)
	if err != nil && !errors.Is(err, io.EOF) {
		return c, release, err
	}
	tail = tail[:m]
	c.RawTail, c.TailAt = tail, c.Size-tailN
	// The first tail line is almost surely cut; drop it.
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	} else {
		tail = nil
	}
	c.Head, c.Tail = head, tail
	return c, release, nil
}

// WidenTail returns a tail of c reaching maxTail bytes back from the end,
// reading only the bytes before c's tail (never the head or the tail
// again), into a new buffer.
func WidenTail(f agent.File, c Chunks, maxTail int64) (tail []byte, release func(), err error) {
	release = func() {}
	if c.RawTail == nil {
		return c.Tail, release, nil
	}
	start := max(int64(len(c.Head)), c.Size-maxTail)
	if start >= c.TailAt {
		return c.Tail, release, nil
	}
	buf := make([]byte, c.TailAt-start, c.TailAt-start+int64(len(c.RawTail)))
	m, err := f.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, release, err
	}
	if m < len(buf) {
		return nil, release, io.ErrUnexpectedEOF // the file shrank
	}
	tail = append(buf, c.RawTail...)
	if start == int64(len(c.Head)) {
		// Joined to the head, which ends on a line boundary.
		return tail, release, nil
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		return tail[i+1:], release, nil
	}
	return nil, release, nil
}

// EachLine calls fn for every non-empty line of b.
func EachLine(b []byte, fn func(line []byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		var line []byte
		if i < 0 {
			line, b = b, nil
		} else {
			line, b = b[:i], b[i+1:]
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			fn(line)
		}
	}
}

// StreamLines calls fn for every non-empty line read from r, however long.
func StreamLines(r io.Reader, fn func(line []byte)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, frag...)
			continue
		}
		line := frag
		if long != nil {
			long = append(long, frag...)
			line, long = long, nil
		}
		if l := bytes.TrimSpace(line); len(l) > 0 {
			fn(l)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// linePool recycles CompleteLines' buffers: an index build reads
// thousands of files, and a fresh megabyte each is mostly clearing memory.
var linePool = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// CompleteLines calls fn for every newline-terminated line of r (newline
// included); an unterminated last line is not reported. Lines are slices
// of one buffer, which grows to the longest line: most of a transcript's
// bytes are long tool-output lines, and copying each out would double
// the work.
func CompleteLines(r io.Reader, fn func(line []byte)) error {
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

// ByteAt is the byte of the file at off, when the Chunks hold it.
func (c Chunks) ByteAt(off int64) (byte, bool) {
	switch {
	case off < 0:
		return 0, false
	case off < int64(len(c.RawHead)):
		return c.RawHead[off], true
	case c.RawTail != nil && off >= c.TailAt && off-c.TailAt < int64(len(c.RawTail)):
		return c.RawTail[off-c.TailAt], true
	}
	return 0, false
}

// LinesCounted calls line with every complete, non-blank line read from r
// (trimmed), in order, and returns how many bytes of r it consumed (a line
// still being written is left for the next call); mc's Off, when mc is
// set, moves past them. The agents' search texts read a transcript so.
func LinesCounted(r io.Reader, mc *agent.MessageCount, line func(l []byte)) (int64, error) {
	var used int64
	err := CompleteLines(r, func(b []byte) {
		used += int64(len(b))
		if l := bytes.TrimSpace(b); len(l) > 0 {
			line(l)
		}
	})
	if mc != nil {
		mc.Off += used
	}
	return used, err
}

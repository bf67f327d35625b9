package jsonl

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/internal/safeio"
	"github.com/tidwall/gjson"
)

// File is what the bounded readers need of a file: random access and its
// size. *os.File satisfies it.
type File interface {
	io.ReaderAt
	io.Closer
	Stat() (os.FileInfo, error)
}

// Opener opens a file. Tests inject one to count the bytes read.
type Opener func(path string) (File, error)

// OpenFile is the default Opener. It opens only regular files: a FIFO
// named as a transcript path would block the open until a writer appears
// (and a device could block a read), so the open is non-blocking and the
// opened file is checked with fstat (internal/safeio), which also closes
// the race with a path swapped between a stat and the open.
func OpenFile(path string) (File, error) {
	f, err := safeio.Open(path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// TailLimits bound a tail read: the first read takes Initial bytes from the
// end, each retry doubles it, never past Max.
type TailLimits struct {
	Initial int64
	Max     int64
}

// DefaultTail reads 256 KiB first and at most 4 MiB: a turn's usage is
// near the end unless a huge tool result follows it.
var DefaultTail = TailLimits{Initial: 256 << 10, Max: 4 << 20}

// HeadLimit bounds a head read: the first records (which carry a
// session's cwd and id) are a few KiB into the file.
const HeadLimit = 64 << 10

// Tail reads the end of a file in growing windows and calls scan with the
// complete lines of each window, last line first, until scan returns true.
func Tail(open Opener, path string, lim TailLimits, scan func(line []byte) (done bool)) (size, read int64, err error) {
	if open == nil {
		open = OpenFile
	}
	if lim.Initial <= 0 {
		lim = DefaultTail
	}
	f, err := open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = st.Size()
	var buf []byte // bytes [off, size) of the file
	off := size
	scanned := size // lines starting at or after scanned were scanned
	want := lim.Initial
	for off > 0 {
		newOff := max(size-want, 0)
		chunk := make([]byte, off-newOff)
		n, rerr := f.ReadAt(chunk, newOff)
		read += int64(n)
		if rerr != nil && rerr != io.EOF {
			return size, read, rerr
		}
		buf = append(chunk[:n], buf...)
		off = newOff
		// The first line of the window may be cut unless it starts the
		// file; scan only whole lines not scanned before.
		start := 0
		if off > 0 {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				start = len(buf)
			} else {
				start = i + 1
			}
		}
		region := buf[start : scanned-off]
		for len(region) > 0 {
			region = bytes.TrimRight(region, "\n")
			i := bytes.LastIndexByte(region, '\n')
			line := region[i+1:]
			region = region[:i+1]
			if len(line) > 0 && scan(line) {
				return size, read, nil
			}
		}
		scanned = off + int64(start)
		if want >= lim.Max || off == 0 {
			break
		}
		want = min(want*2, lim.Max)
	}
	return size, read, nil
}

// Head calls fn with each line of the first HeadLimit bytes of path until
// fn returns true. A line longer than the limit ends the read.
func Head(path string, fn func(line []byte) (done bool)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, HeadLimit))
	sc.Buffer(make([]byte, 0, 16<<10), HeadLimit)
	for sc.Scan() {
		if fn(sc.Bytes()) {
			return nil
		}
	}
	return nil
}

// Range returns bytes [from, to) of path, at most the last limit of them.
func Range(path string, from, to, limit int64) []byte {
	if to-from > limit {
		from = to - limit
	}
	if to <= from {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, to-from)
	n, _ := f.ReadAt(buf, from)
	return buf[:n]
}

// FirstString reads the head of path: the first non-empty string at key
// (a gjson path) in a line, and whether any line is a JSON object at all.
func FirstString(path, key string) (value string, valid bool) {
	_ = Head(path, func(line []byte) bool {
		if !gjson.ValidBytes(line) {
			return false
		}
		r := gjson.ParseBytes(line)
		if !r.IsObject() {
			return false
		}
		valid = true
		if c := r.Get(key); c.Type == gjson.String && c.Str != "" {
			value = c.Str
			return true
		}
		return false
	})
	return value, valid
}

// Newest returns the file matching pattern modified last, and not before
// since; "" when there is none.
func Newest(pattern string, since time.Time) string {
	matches, _ := filepath.Glob(pattern)
	var best string
	var bestT time.Time
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil || st.ModTime().Before(since) || !st.ModTime().After(bestT) {
			continue
		}
		best, bestT = m, st.ModTime()
	}
	return best
}

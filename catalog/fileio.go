package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// bytesString views b as a string without copying when zeroCopy is set
// (the caller guarantees b is not modified while the string is used),
// else copies it.
func bytesString(b []byte, zeroCopy bool) string {
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

// chunks is what a bounded read of a file returns: the head and, when the
// file is larger than both budgets together, a separate tail. Both end
// and (the tail) start on line boundaries.
type chunks struct {
	head, tail []byte
	// rawHead is the head as read, its cut last line included; rawTail
	// is the tail as read, its cut first line included; tailAt is its
	// offset in the file.
	rawHead []byte
	rawTail []byte
	tailAt  int64
	size    int64
	modTime time.Time
}

// bufPool recycles read buffers across files: List parses each buffer in
// place and clones what it keeps, so a buffer is free once a file is done.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// readHeadTail reads at most headN bytes from the start and tailN bytes
// from the end of the file, into a pooled buffer; call release when done
// with the chunks.
func readHeadTail(f File, headN, tailN int64) (c chunks, release func(), err error) {
	fi, err := f.Stat()
	if err != nil {
		return chunks{}, func() {}, err
	}
	c = chunks{size: fi.Size(), modTime: fi.ModTime()}
	n := min(c.size, headN+tailN)
	bp := bufPool.Get().(*[]byte)
	if int64(cap(*bp)) < n {
		*bp = make([]byte, n)
	}
	buf := (*bp)[:n]
	release = func() { bufPool.Put(bp) }
	if c.size <= headN+tailN {
		m, err := f.ReadAt(buf, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return c, release, err
		}
		c.head = buf[:m]
		c.rawHead = c.head
		return c, release, nil
	}
	head, tail := buf[:headN], buf[headN:]
	m, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return c, release, err
	}
	head = head[:m]
	c.rawHead = head
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	m, err = f.ReadAt(tail, c.size-tailN)
	if err != nil && !errors.Is(err, io.EOF) {
		return c, release, err
	}
	tail = tail[:m]
	c.rawTail, c.tailAt = tail, c.size-tailN
	// The first tail line is almost surely cut; drop it.
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	} else {
		tail = nil
	}
	c.head, c.tail = head, tail
	return c, release, nil
}

// widenTail returns a tail of c reaching maxTail bytes back from the end,
// reading only the bytes before c's tail (never the head or the tail
// again), into a new buffer.
func widenTail(f File, c chunks, maxTail int64) (tail []byte, release func(), err error) {
	release = func() {}
	if c.rawTail == nil {
		return c.tail, release, nil
	}
	start := max(int64(len(c.head)), c.size-maxTail)
	if start >= c.tailAt {
		return c.tail, release, nil
	}
	buf := make([]byte, c.tailAt-start, c.tailAt-start+int64(len(c.rawTail)))
	m, err := f.ReadAt(buf, start)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, release, err
	}
	if m < len(buf) {
		return nil, release, io.ErrUnexpectedEOF // the file shrank
	}
	tail = append(buf, c.rawTail...)
	if start == int64(len(c.head)) {
		// Joined to the head, which ends on a line boundary.
		return tail, release, nil
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		return tail[i+1:], release, nil
	}
	return nil, release, nil
}

// eachLine calls fn for every non-empty line of b.
func eachLine(b []byte, fn func(line []byte)) {
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

// streamLines calls fn for every non-empty line read from r, however long.
func streamLines(r io.Reader, fn func(line []byte)) error {
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

// ProcessInspector answers questions about live processes.
type ProcessInspector interface {
	// Alive reports whether a process with this pid exists.
	Alive(pid int) bool
}

// OpenFileFinder finds the processes holding files open. Codex leaves no
// pid file, so a thread counts as running while a process holds its
// rollout open.
type OpenFileFinder interface {
	OpenBy(paths map[string]bool) map[string]int
}

// OSProcesses inspects this machine's processes.
type OSProcesses struct{}

// Alive uses signal 0: EPERM still means the process exists.
func (OSProcesses) Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// splitPath is filepath.Dir and filepath.Base of p, without Clean's work
// when p is already a clean absolute path with a parent (every listed
// source the readers build): a warm list splits 10,000 of them twice.
func splitPath(p string) (dir, base string) {
	if i := strings.LastIndexByte(p, '/'); i > 0 && cleanAbs(p) {
		return p[:i], p[i+1:]
	}
	return filepath.Dir(p), filepath.Base(p)
}

// pathSplitter is splitPath for paths that mostly share their directory
// with the path before them (a listing's sources, grouped by directory):
// a path in the directory of the last one split by the fast path is
// recognised by comparing that prefix and looking forward for a slash,
// both vector scans, where LastIndexByte and cleanAbs walk every byte
// (two passes over a listing's 10,000 sources cost ~4 ms).
type pathSplitter struct{ dir string }

func (ps *pathSplitter) split(p string) (dir, base string) {
	if d := ps.dir; d != "" && len(p) > len(d)+1 && p[len(d)] == '/' && p[:len(d)] == d {
		// d is clean and absolute (not "/"), so p is too when its last
		// element is a plain name: splitPath's fast path, same answer.
		if name := p[len(d)+1:]; strings.IndexByte(name, '/') < 0 && name != "." && name != ".." {
			return d, name
		}
	}
	if i := strings.LastIndexByte(p, '/'); i > 0 && cleanAbs(p) {
		ps.dir = p[:i]
		return p[:i], p[i+1:]
	}
	ps.dir = ""
	return splitPath(p)
}

// cleanAbs reports whether p is absolute and filepath.Clean would leave it
// unchanged: no empty, "." or ".." element and no trailing slash.
func cleanAbs(p string) bool {
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if p[i-1] != '/' {
			continue
		}
		switch rest := p[i:]; {
		case rest[0] == '/':
			return false
		case rest == "." || strings.HasPrefix(rest, "./"), rest == ".." || strings.HasPrefix(rest, "../"):
			return false
		}
	}
	return true
}

// joinNames appends filepath.Join(dir, name) for each name read from dir
// (no separator, not "." or ".."), without Clean's work per path when dir
// is clean and absolute.
func joinNames(paths []string, dir string, names []string) []string {
	clean := cleanAbs(dir)
	// The directory's paths share one allocation (a warm list joins
	// 10,000, one allocation each): its room is every path's length, so
	// it never moves and the strings viewing it stay valid.
	room := 0
	for _, name := range names {
		room += len(dir) + 1 + len(name)
	}
	buf := make([]byte, 0, room)
	for _, name := range names {
		if clean && name != "" && name != "." && name != ".." && !strings.Contains(name, "/") {
			start := len(buf)
			buf = append(append(append(buf, dir...), '/'), name...)
			paths = append(paths, bytesString(buf[start:], true))
		} else {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	return paths
}

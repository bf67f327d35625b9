package filecache

import (
	"bytes"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/bincodec"
)

// UsageEntry is what a usage count kept of one transcript: the records of
// its complete lines up to Offset, and the counter's state there, so the
// next count reads only what was appended. Head fingerprints the file's
// first bytes: a file rewritten in place (trimmed, compacted, restored)
// no longer matches and is counted again from its start.
type UsageEntry struct {
	Offset  int64
	Head    uint64
	Records []agent.UsageRecord
	Skipped int
	// Folded counts the copies folded into Records (Folder).
	Folded int
	// State is the counter's own (opaque here); nil for none.
	State []byte
	// Again: the counter could not yet settle how the file's start
	// counts, so the next count of a grown file starts over.
	Again bool
}

// UsageCache keeps a UsageEntry per transcript.
type UsageCache = Cache[UsageEntry, NoRecords]

// OpenUsage loads the usage cache at path; kind names the counter and its
// version (a change to what it counts changes it).
func OpenUsage(path, kind string) *UsageCache {
	return Open(path, &Codec[UsageEntry, NoRecords]{Kind: "usage/3/" + kind, Put: putUsage, Get: getUsage})
}

// UsagePath is the usage cache beside a reader's list cache.
func UsagePath(listCache string) string {
	return strings.TrimSuffix(listCache, ".gob") + "-usage.gob"
}

// LineCounter counts a transcript's lines, resuming from a kept state.
type LineCounter interface {
	// Start begins at state (nil: the file's start).
	Start(state []byte)
	// Line counts one complete line (without its newline) that starts
	// at the file offset off.
	Line(b []byte, off int64)
	// End is what was counted since Start, and the state to resume at
	// (again: none yet; count from the start next time).
	End() (recs []agent.UsageRecord, skipped int, state []byte, again bool)
}

// headBytes is how much of a file's start Head fingerprints.
const headBytes = 4096

// CountUsage is the usage of the transcript at path: the kept entry when
// the file is unchanged, the kept records and the appended lines' when it
// only grew, else a count of the whole file. A line not yet ended by a
// newline (being written) waits for the next count. The mark is where
// the count stopped, stamped with the path's stat before it was read.
func CountUsage(c *UsageCache, open agent.Opener, path string, lc LineCounter) (UsageEntry, agent.UsageMark, error) {
	var prev UsageEntry
	// An unchanged file is not opened: a stat is one system call, an
	// open, fstat and close three (a warm report's opens were ~15% of it).
	pfi, err := os.Stat(path)
	if err == nil && c.Lookup(path, pfi.Size(), pfi.ModTime(), &prev) {
		return prev, markOf(&prev, pfi), nil
	}
	f, err := open(path)
	if err != nil {
		return UsageEntry{}, agent.UsageMark{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return UsageEntry{}, agent.UsageMark{}, err
	}
	size, mtime := fi.Size(), fi.ModTime()
	if c.Lookup(path, size, mtime, &prev) {
		return prev, markOf(&prev, pfi), nil
	}
	head, err := headHash(f, size)
	if err != nil {
		return UsageEntry{}, agent.UsageMark{}, err
	}
	start := UsageEntry{Head: head}
	if old, _, _, ok := c.Peek(path); ok && goesOn(old.Offset, old.Head, old.Again, head, size) {
		start = *old
	}
	e, err := countFrom(f, start, lc)
	if err != nil {
		return UsageEntry{}, agent.UsageMark{}, err
	}
	c.Store(path, size, mtime, e)
	return e, markOf(&e, pfi), nil
}

// goesOn reports whether a file of this head and size goes on from a
// count that stopped at offset with that head: a count that stopped in
// the fingerprinted first bytes (but at the end) cannot tell.
func goesOn(offset int64, was uint64, again bool, head uint64, size int64) bool {
	return !again && was == head && offset <= size && (offset >= headBytes || offset == size)
}

// markOf is e's mark, stamped with the path's stat fi (none when the
// path could not be stat'ed: the next count opens the file).
func markOf(e *UsageEntry, fi os.FileInfo) agent.UsageMark {
	m := agent.UsageMark{Offset: e.Offset, Head: e.Head, State: e.State, Again: e.Again}
	if fi != nil {
		m.Size, m.MTime = fi.Size(), fi.ModTime().UnixNano()
	}
	return m
}

// Stamp gives each of files its Mark's size and mtime from a stat (a
// reader's UsageFiles); a file that cannot be stat'ed is a diagnostic.
func Stamp(files []agent.FileUsage) ([]agent.FileUsage, []agent.Diagnostic) {
	out := files[:0]
	var diags []agent.Diagnostic
	for _, f := range files {
		fi, err := os.Stat(f.Path)
		if err != nil {
			diags = append(diags, agent.Diagnostic{Harness: f.Harness, Path: f.Path, Problem: "usage not counted: " + err.Error()})
			continue
		}
		f.Mark = agent.UsageMark{Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
		out = append(out, f)
	}
	return out, diags
}

// Resume counts the transcript at path past m (a zero mark: from its
// start): the entry holds the records and skipped lines past m only. ok
// is false when the file does not go on from m (see goesOn).
func Resume(open agent.Opener, path string, m agent.UsageMark, lc LineCounter) (e UsageEntry, next agent.UsageMark, ok bool, err error) {
	pfi, err := os.Stat(path)
	if err != nil {
		return e, next, false, err
	}
	f, err := open(path)
	if err != nil {
		return e, next, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return e, next, false, err
	}
	head, err := headHash(f, fi.Size())
	if err != nil {
		return e, next, false, err
	}
	start := UsageEntry{Head: head}
	if m.Offset != 0 || m.Head != 0 || m.Again {
		if !goesOn(m.Offset, m.Head, m.Again, head, fi.Size()) {
			return e, next, false, nil
		}
		start.Offset, start.State = m.Offset, m.State
	}
	if e, err = countFrom(f, start, lc); err != nil {
		return UsageEntry{}, next, false, err
	}
	return e, markOf(&e, pfi), true, nil
}

func headHash(f agent.File, size int64) (uint64, error) {
	b := make([]byte, min(size, headBytes))
	if _, err := f.ReadAt(b, 0); err != nil && err != io.EOF {
		return 0, err
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64(), nil
}

// Folder is a LineCounter whose records are folded (agent.FoldCopies)
// each time a file's count grows: a file's kept records then stand for
// all its lines.
type Folder interface {
	Fold(recs []agent.UsageRecord) (out []agent.UsageRecord, folded int, ok bool)
}

// Marked is a LineCounter that counts only lines holding Marker (but
// those starting in the file's first Whole bytes, which all count): the
// others are never split out (most of a transcript's bytes are lines
// without usage; a newline and the marker searched per line, each line
// copied into a growing buffer, took a cold report 2.1–2.5 s of CPU at
// 2,000 sessions, against 1.5–1.8 s so).
type Marked interface {
	// Marker is the bytes a counted line holds, and the index in it of
	// its rarest byte in a transcript, which is what is searched for
	// (indexMarker).
	Marker() (marker []byte, rare int)
	Whole() int64
}

// countFrom reads the file from e.Offset, counting each complete line.
func countFrom(f agent.File, e UsageEntry, lc LineCounter) (UsageEntry, error) {
	lc.Start(e.State)
	var marker []byte
	var rare int
	whole := int64(math.MaxInt64)
	if m, ok := lc.(Marked); ok {
		marker, rare = m.Marker()
		whole = m.Whole()
	}
	bp := bufs.Get().(*[]byte)
	buf := *bp
	defer func() {
		// One grown for a long line is left to the collector: pooled, each
		// goroutine's largest line stayed in memory to the end of the
		// count (72 MiB of a cold report's 320 MiB RSS at 10,000
		// generated sessions, whose longest line is 8 MB).
		if cap(*bp) <= bufSize {
			bufs.Put(bp)
		}
	}()
	off, n := e.Offset, 0 // off: the file offset of buf[0]; n: bytes in buf
	for {
		if n == len(buf) && marker != nil && off >= whole {
			// A line longer than the buffer, counted only if it holds the
			// marker: read on to its end keeping nothing (a cold report of
			// 10,000 generated sessions, whose longest line is 8 MB,
			// allocated 1.2 GB growing buffers for such lines).
			next, has, err := skipLine(f, buf, off, marker, rare)
			if err != nil {
				return UsageEntry{}, err
			}
			if next == off {
				break // the file ends in it: not yet a complete line
			}
			if has {
				line := make([]byte, next-off)
				if _, err := f.ReadAt(line, off); err != nil {
					return UsageEntry{}, err
				}
				lc.Line(line[:len(line)-1], off)
			}
			off, n = next, 0
			continue
		}
		if n == len(buf) {
			buf = append(buf[:n], make([]byte, len(buf))...)
			*bp = buf
		}
		m, err := f.ReadAt(buf[n:], off+int64(n))
		n += m
		if err != nil && err != io.EOF {
			return UsageEntry{}, err
		}
		end := bytes.LastIndexByte(buf[:n], '\n') + 1 // the complete lines
		k := countLines(buf[:end], off, whole, lc)
		if k < end {
			countMarked(buf[k:end], off+int64(k), marker, rare, lc)
		}
		n = copy(buf, buf[end:n])
		off += int64(end)
		if err == io.EOF || m == 0 {
			break
		}
	}
	recs, skipped, state, again := lc.End()
	out := UsageEntry{Offset: off, Head: e.Head, Skipped: e.Skipped + skipped, State: state, Again: again, Folded: e.Folded}
	out.Records = append(append(make([]agent.UsageRecord, 0, len(e.Records)+len(recs)), e.Records...), recs...)
	if fo, ok := lc.(Folder); ok {
		folded, n, ok := fo.Fold(out.Records)
		if !ok && e.Offset > 0 {
			// Copies folded before can no longer be: from the start.
			return countFrom(f, UsageEntry{Head: e.Head}, lc)
		}
		out.Records, out.Folded = folded, out.Folded+n
		if cap(folded) > 2*len(folded) {
			// Folded in place: the array of every copy would stay with
			// the few records kept (at 10,000 generated sessions, 71 MB
			// of a cold report's heap; a cold report's RSS 250 -> 208 MiB).
			out.Records = slices.Clone(folded)
		}
	}
	return out, nil
}

// skipLine reads on from a line that fills buf and starts at the file
// offset off, keeping none of it, to its end: next is the offset past its
// newline (off when the file ends first), has whether it holds marker.
func skipLine(f agent.File, buf []byte, off int64, marker []byte, rare int) (next int64, has bool, err error) {
	at, n := off, len(buf) // at: the file offset of buf[0]
	for {
		nl := bytes.IndexByte(buf[:n], '\n')
		seg := n
		if nl >= 0 {
			seg = nl
		}
		has = has || indexMarker(buf[:seg], marker, rare) >= 0
		if nl >= 0 {
			return at + int64(nl) + 1, has, nil
		}
		// The last bytes are kept: a marker may go on in the next read.
		k := max(n-(len(marker)-1), 0)
		n = copy(buf, buf[k:n])
		at += int64(k)
		m, err := f.ReadAt(buf[n:], at+int64(n))
		n += m
		if err != nil && err != io.EOF {
			return 0, false, err
		}
		if m == 0 {
			return off, false, nil
		}
	}
}

// PutUsageEntry writes e as the usage cache keeps it (for a reader that
// keeps entries in records of its own: OpenCode's, per database).
func PutUsageEntry(w *bincodec.Writer, e *UsageEntry) { putUsage(w, e) }

// GetUsageEntry reads what PutUsageEntry wrote.
func GetUsageEntry(r *bincodec.Reader) UsageEntry { return getUsage(r) }

// indexMarker is bytes.Index(b, m), found by m's rarest byte m[rare]:
// '{' ends Claude's marker and is one byte in ~130 of a transcript, where
// bytes.Index stops at every '"' of its first byte (one in ~40): with
// bytes.Index a cold count of Claude transcripts took 27 % more CPU.
// Codex's "n_co" found by its '_' took 33 ms for 347 MB of rollouts,
// against 285 ms with bytes.Index.
func indexMarker(b, m []byte, rare int) int {
	for i := rare; i+len(m)-rare <= len(b); i++ {
		j := bytes.IndexByte(b[i:len(b)-(len(m)-rare-1)], m[rare])
		if j < 0 {
			return -1
		}
		i += j
		if bytes.Equal(b[i-rare:i-rare+len(m)], m) {
			return i - rare
		}
	}
	return -1
}

// bufs are countFrom's read buffers, one per counting goroutine.
var bufs = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

const bufSize = 1 << 20

// countLines counts the lines of b (complete lines, b[0] at the file
// offset off) that start before the offset whole, and returns how many
// bytes of b they took.
func countLines(b []byte, off, whole int64, lc LineCounter) int {
	k := 0
	for k < len(b) && off+int64(k) < whole {
		i := bytes.IndexByte(b[k:], '\n')
		lc.Line(b[k:k+i], off+int64(k))
		k += i + 1
	}
	return k
}

// countMarked counts the lines of b (complete lines, b[0] at the file
// offset off) holding marker.
func countMarked(b []byte, off int64, marker []byte, rare int, lc LineCounter) {
	for k := 0; ; {
		i := indexMarker(b[k:], marker, rare)
		if i < 0 {
			return
		}
		i += k
		start := bytes.LastIndexByte(b[:i], '\n') + 1
		end := i + bytes.IndexByte(b[i:], '\n')
		lc.Line(b[start:end], off+int64(start))
		k = end + 1
	}
}

// The record flags of the cache's encoding.
const (
	flagSidechain = 1 << iota
	flagFast
	flagHasCost
	flagQuirk
	flagAltKey
	flagFolded
)

// putUsage writes an entry compactly: its models once, then per record
// a model index, the time as a delta from the record before and the keys
// in 8 bytes (~26 bytes a record against ~45 with each record's model
// and time whole: the caches a report reads whole, after an append too,
// 7.1 -> 4.2 MB at 2,000 sessions; a warm report's CPU 7 % less).
func putUsage(w *bincodec.Writer, e *UsageEntry) {
	w.Int(e.Offset)
	w.Uint(e.Head)
	w.Int(int64(e.Skipped))
	w.Int(int64(e.Folded))
	w.Str(string(e.State))
	w.Bool(e.Again)
	var models []string
	index := map[string]uint64{}
	for i := range e.Records {
		if _, ok := index[e.Records[i].Model]; !ok {
			index[e.Records[i].Model] = uint64(len(models))
			models = append(models, e.Records[i].Model)
		}
	}
	w.Strs(models)
	w.Uint(uint64(len(e.Records)))
	var last int64
	for i := range e.Records {
		r := &e.Records[i]
		var flags byte
		for bit, on := range [...]bool{r.Sidechain, r.Fast, r.HasCost, r.Quirk, r.AltKey != 0, r.Folded} {
			if on {
				flags |= 1 << bit
			}
		}
		w.Byte(flags)
		w.Uint(index[r.Model])
		w.Int(r.Time - last)
		last = r.Time
		w.Fixed64(r.Key)
		if r.AltKey != 0 {
			w.Fixed64(r.AltKey)
		}
		for _, v := range [...]int64{r.Input, r.Output, r.CacheWrite, r.CacheWrite1h, r.CacheRead, r.Reasoning, r.Total} {
			w.Int(v)
		}
		if r.HasCost {
			w.Float(r.CostUSD)
		}
	}
}

func getUsage(rd *bincodec.Reader) UsageEntry {
	e := UsageEntry{Offset: rd.Int(), Head: rd.Uint(), Skipped: int(rd.Int()), Folded: int(rd.Int())}
	if s := rd.Str(); s != "" {
		e.State = []byte(s)
	}
	e.Again = rd.Bool()
	models := make([]string, rd.Count())
	for i := range models {
		models[i] = rd.Str()
	}
	n := rd.Count()
	if n > 0 {
		e.Records = make([]agent.UsageRecord, n)
	}
	var last int64
	for i := range e.Records {
		r := &e.Records[i]
		flags := rd.Byte()
		r.Sidechain, r.Fast, r.HasCost, r.Quirk = flags&flagSidechain != 0, flags&flagFast != 0, flags&flagHasCost != 0, flags&flagQuirk != 0
		r.Folded = flags&flagFolded != 0
		if m := rd.Uint(); m < uint64(len(models)) {
			r.Model = models[m]
		} else {
			rd.Fail()
		}
		last += rd.Int()
		r.Time = last
		r.Key = rd.Fixed64()
		if flags&flagAltKey != 0 {
			r.AltKey = rd.Fixed64()
		}
		r.Input, r.Output, r.CacheWrite, r.CacheWrite1h = rd.Int(), rd.Int(), rd.Int(), rd.Int()
		r.CacheRead, r.Reasoning, r.Total = rd.Int(), rd.Int(), rd.Int()
		if r.HasCost {
			r.CostUSD = rd.Float()
		}
		if rd.Err() != nil {
			e.Records = e.Records[:i]
			return e
		}
	}
	return e
}

// JSONLFiles are the *.jsonl files under root at any depth, sorted by
// path (none when root does not exist); links are not followed (the
// agents' usage reports do not follow them either).
func JSONLFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll
			}
			if p == root {
				return err
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Models interns model names: a record's model must not keep the line it
// was read from alive (a whole transcript's lines, otherwise).
type Models struct {
	mu sync.Mutex
	m  map[string]string
}

// Intern is s, shared with every equal name seen before.
func (ms *Models) Intern(s string) string {
	if s == "" {
		return ""
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if v, ok := ms.m[s]; ok {
		return v
	}
	if ms.m == nil {
		ms.m = map[string]string{}
	}
	v := strings.Clone(s)
	ms.m[v] = v
	return v
}

// CountAll runs count for each of n files on a few goroutines (the files
// are independent; the caller keeps their order by index).
func CountAll(n int, count func(i int)) {
	workers := min(n, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				count(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

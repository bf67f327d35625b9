package picker

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tether-dev/tether/catalog"
)

// The snapshot's encoding, written by hand: gob spent ~45 ms of the
// first paint at 10,000 sessions decoding it (reflection per field, a
// string allocation per string, a GobDecode call per time). Here a decode
// is one pass over the bytes: the strings share the bytes read, the
// pointed-to values and the string slices are allocated in blocks.
//
//	magic (8 bytes) | version (uvarint) | CRC-32C of the body (4 bytes, LE) | body
//
// The body is the session count, the chunk table (the number of chunks,
// then each one's session count and length in bytes), then the chunks:
// each session's short id (what catalog.ShortIDs gives it among them: the
// sort it takes is not redone at every start) and its fields in the fixed
// order of snapWriter.session. The chunks decode in parallel. Strings are a uvarint length and the bytes,
// integers varints, floats their IEEE bits (8 bytes, LE), times their
// MarshalBinary form (what gob stored: the instant and the zone offset).
// A flags word says which optional values follow. Any change to what is
// stored changes snapVersion: a file of another version or magic, with a
// bad checksum, unknown flags or bytes left over is not used (the picker
// lists the catalog instead), never misread.
const (
	snapMagic   = "tether\x00p"
	snapVersion = 2 // 1 was gob
)

// Which optional values a session has.
const (
	hasLastHuman = 1 << iota
	hasMessages
	isArchived
	hasRuntime
	hasStale
	hasContext
	hasArchive
	hasSummary
	hasEnv
	knownFlags = 1<<iota - 1
)

// minSessionBytes is less than any session's encoding: a count above
// body/minSessionBytes is corrupt (and would allocate too much).
const minSessionBytes = 32

var (
	castagnoli    = crc32.MakeTable(crc32.Castagnoli)
	errSnapFormat = errors.New("not a picker snapshot of this version")
)

// encodeSnapshot returns the encoding of ss and their short ids; the
// full-read fields (evidence, context curve, counts) are not stored.
func encodeSnapshot(ss []catalog.Session, short []string) []byte {
	var table, chunks snapWriter
	chunks.b = make([]byte, 0, 512*len(ss))
	table.uint(uint64(len(ss)))
	n := (len(ss) + chunkSessions - 1) / chunkSessions
	table.uint(uint64(n))
	for lo := 0; lo < len(ss); lo += chunkSessions {
		hi := min(lo+chunkSessions, len(ss))
		start := len(chunks.b)
		for i := lo; i < hi; i++ {
			chunks.str(short[i])
			chunks.session(&ss[i])
		}
		table.uint(uint64(hi - lo))
		table.uint(uint64(len(chunks.b) - start))
	}
	body := append(table.b, chunks.b...)
	head := append([]byte(snapMagic), binary.AppendUvarint(nil, snapVersion)...)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(body, castagnoli))
	return append(head, body...)
}

// chunkSessions is how many sessions a chunk holds: the chunks decode in
// parallel (a 10,000-session snapshot in ~10 ms on one core).
const chunkSessions = 2048

// chunk is where one chunk's sessions go and where its bytes are.
type chunk struct{ first, n, off, len int }

// decodeSnapshot parses data; any error means it is not to be used. The
// strings returned share data's memory: data must not change afterwards.
func decodeSnapshot(data []byte) ([]catalog.Session, []string, error) {
	if len(data) < len(snapMagic) || string(data[:len(snapMagic)]) != snapMagic {
		return nil, nil, errSnapFormat
	}
	rest := data[len(snapMagic):]
	v, n := binary.Uvarint(rest)
	if n <= 0 || v != snapVersion || len(rest) < n+4 {
		return nil, nil, errSnapFormat
	}
	sum := binary.LittleEndian.Uint32(rest[n:])
	body := rest[n+4:]
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, nil, errSnapFormat
	}
	var bodyStr string
	if len(body) > 0 {
		bodyStr = unsafe.String(unsafe.SliceData(body), len(body))
	}
	count, chunks, err := chunkTable(body)
	if err != nil {
		return nil, nil, err
	}
	if count == 0 {
		return nil, nil, nil // as gob gave it: no snapshot to paint from
	}
	ss := make([]catalog.Session, count)
	short := make([]string, count)
	errs := make([]error, len(chunks))
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1)) - 1; k < len(chunks); k = int(next.Add(1)) - 1 {
				c := chunks[k]
				r := &snapReader{b: body[c.off : c.off+c.len], s: bodyStr[c.off : c.off+c.len]}
				for i := c.first; i < c.first+c.n && r.err == nil; i++ {
					short[i] = r.str()
					r.session(&ss[i])
				}
				if r.err == nil && r.off != len(r.b) {
					r.fail()
				}
				errs[k] = r.err
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, errSnapFormat
	}
	return ss, short, nil
}

// chunkTable reads the session count and the chunk table at the start of
// body: the chunks must hold count sessions and every byte after the
// table, each at least minSessionBytes a session.
func chunkTable(body []byte) (int, []chunk, error) {
	r := &snapReader{b: body}
	count, n := r.count(), r.count()
	if r.err != nil || count > len(body)/minSessionBytes || n > count {
		return 0, nil, errSnapFormat
	}
	chunks := make([]chunk, n)
	first, size := 0, 0
	for k := range chunks {
		c := chunk{first: first, n: r.count(), len: r.count()}
		if c.n == 0 || c.len < c.n*minSessionBytes {
			r.fail()
		}
		first, size = first+c.n, size+c.len
		chunks[k] = c
	}
	if r.err != nil || first != count || size != len(body)-r.off {
		return 0, nil, errSnapFormat
	}
	off := r.off
	for k := range chunks {
		chunks[k].off = off
		off += chunks[k].len
	}
	return count, chunks, nil
}

type snapWriter struct{ b []byte }

func (w *snapWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *snapWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }

func (w *snapWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *snapWriter) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *snapWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *snapWriter) time(t time.Time) {
	b, err := t.MarshalBinary()
	if err != nil {
		// A zone offset that is not a whole minute, or a year beyond
		// int16: not from a transcript; stored as UTC.
		b, _ = t.UTC().MarshalBinary()
	}
	w.uint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func flagsOf(s *catalog.Session) uint64 {
	var f uint64
	set := func(bit uint64, on bool) {
		if on {
			f |= bit
		}
	}
	set(hasLastHuman, s.LastHumanActivity != nil)
	set(hasMessages, s.Messages != nil)
	set(isArchived, s.Archived)
	set(hasRuntime, s.Runtime != nil)
	set(hasStale, s.Stale != nil)
	set(hasContext, s.Context != nil)
	set(hasArchive, s.Archive != nil)
	set(hasSummary, s.Summary != nil)
	set(hasEnv, len(s.Resume.Env) > 0)
	return f
}

// session writes s's listing fields; readSession reads them back in the
// same order.
func (w *snapWriter) session(s *catalog.Session) {
	for _, v := range []string{s.Harness, s.ID, s.Cwd, s.IdentityRoot, s.GitBranch, s.GitOrigin, s.GitSHA} {
		w.str(v)
	}
	w.time(s.Created)
	w.time(s.LastActivity)
	f := flagsOf(s)
	w.uint(f)
	if f&hasLastHuman != 0 {
		w.time(*s.LastHumanActivity)
	}
	w.str(s.Title)
	w.str(s.TitleSource)
	w.str(s.FirstPrompt)
	w.strs(s.RecentPrompts)
	if f&hasMessages != 0 {
		w.int(int64(*s.Messages))
	}
	w.str(s.State)
	if rt := s.Runtime; rt != nil {
		w.int(int64(rt.PID))
		w.str(rt.Status)
		w.str(rt.Tmux)
		w.str(rt.TmuxTarget)
	}
	if st := s.Stale; st != nil {
		w.str(st.Reason)
		w.time(st.At)
		w.str(st.Fix)
	}
	if c := s.Context; c != nil {
		w.int(c.Tokens)
		w.int(c.Window)
		w.bool(c.WindowKnown)
		w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(c.Percent))
	}
	if a := s.Archive; a != nil {
		w.str(a.Path)
		w.bool(a.Compressed)
		w.str(a.Restore)
	}
	w.strs(s.Resume.Argv)
	w.str(s.Resume.Dir)
	if f&hasEnv != 0 {
		w.uint(uint64(len(s.Resume.Env)))
		for k, v := range s.Resume.Env {
			w.str(k)
			w.str(v)
		}
	}
	if sm := s.Summary; sm != nil {
		for _, v := range []string{sm.Title, sm.Objective, sm.Completed, sm.CurrentWork, sm.LikelyNext, sm.Provider, sm.Model} {
			w.str(v)
		}
		w.time(sm.Created)
		w.time(sm.LastActivity)
		w.bool(sm.Current)
		w.int(int64(sm.HumanPrompts))
	}
	w.str(s.Source)
	w.int(s.SourceSize)
	w.int(s.SourceMTime)
	w.str(s.CLIVersion)
	w.str(s.Origin)
	w.str(s.Model)
}

// snapReader reads the body: b and s are the same memory (strings are
// substrings of s). After the first error every read returns a zero value
// and err stays set.
type snapReader struct {
	b   []byte
	s   string
	off int
	err error

	// Blocks the pointed-to values and string slices are cut from.
	times    block[time.Time]
	ints     block[int]
	runtimes block[catalog.Runtime]
	stales   block[catalog.Stale]
	contexts block[catalog.ContextUsage]
	archives block[catalog.ArchiveRef]
	sums     block[catalog.Summary]
	strings  []string
}

func (r *snapReader) fail() {
	if r.err == nil {
		r.err = errSnapFormat
	}
	r.off = len(r.b)
}

func (r *snapReader) uint() uint64 {
	if r.off < len(r.b) && r.b[r.off] < 0x80 { // the common one-byte case
		r.off++
		return uint64(r.b[r.off-1])
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

func (r *snapReader) int() int64 {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// count is a number of items to come, each at least one byte.
func (r *snapReader) count() int {
	v := r.uint()
	if v > uint64(len(r.b)-r.off) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *snapReader) str() string {
	n := r.count()
	r.off += n
	return r.s[r.off-n : r.off]
}

func (r *snapReader) bool() bool {
	if r.off >= len(r.b) || r.b[r.off] > 1 {
		r.fail()
		return false
	}
	r.off++
	return r.b[r.off-1] == 1
}

func (r *snapReader) float() float64 {
	if len(r.b)-r.off < 8 {
		r.fail()
		return 0
	}
	r.off += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.off-8:]))
}

func (r *snapReader) time() time.Time {
	n := r.count()
	r.off += n
	var t time.Time
	if r.err == nil && t.UnmarshalBinary(r.b[r.off-n:r.off]) != nil {
		r.fail()
	}
	return t
}

// strs reads a string slice, cut from a shared block (capacity limited to
// its length, so an append copies). Empty is nil.
func (r *snapReader) strs() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	if len(r.strings)+n > cap(r.strings) {
		r.strings = make([]string, 0, max(n, blockSize))
	}
	start := len(r.strings)
	for range n {
		r.strings = append(r.strings, r.str())
	}
	return r.strings[start:len(r.strings):len(r.strings)]
}

func (r *snapReader) session(s *catalog.Session) {
	for _, p := range []*string{&s.Harness, &s.ID, &s.Cwd, &s.IdentityRoot, &s.GitBranch, &s.GitOrigin, &s.GitSHA} {
		*p = r.str()
	}
	s.Created = r.time()
	s.LastActivity = r.time()
	f := r.uint()
	if f&^knownFlags != 0 {
		r.fail()
		return
	}
	if f&hasLastHuman != 0 {
		s.LastHumanActivity = r.times.new(r.time())
	}
	s.Title = r.str()
	s.TitleSource = r.str()
	s.FirstPrompt = r.str()
	s.RecentPrompts = r.strs()
	if f&hasMessages != 0 {
		s.Messages = r.ints.new(int(r.int()))
	}
	s.Archived = f&isArchived != 0
	s.State = r.str()
	if f&hasRuntime != 0 {
		s.Runtime = r.runtimes.new(catalog.Runtime{PID: int(r.int()), Status: r.str(), Tmux: r.str(), TmuxTarget: r.str()})
	}
	if f&hasStale != 0 {
		s.Stale = r.stales.new(catalog.Stale{Reason: r.str(), At: r.time(), Fix: r.str()})
	}
	if f&hasContext != 0 {
		s.Context = r.contexts.new(catalog.ContextUsage{Tokens: r.int(), Window: r.int(), WindowKnown: r.bool(), Percent: r.float()})
	}
	if f&hasArchive != 0 {
		s.Archive = r.archives.new(catalog.ArchiveRef{Path: r.str(), Compressed: r.bool(), Restore: r.str()})
	}
	s.Resume.Argv = r.strs()
	s.Resume.Dir = r.str()
	if f&hasEnv != 0 {
		n := r.count()
		s.Resume.Env = make(map[string]string, n)
		for range n {
			k := r.str()
			s.Resume.Env[k] = r.str()
		}
	}
	if f&hasSummary != 0 {
		sm := r.sums.new(catalog.Summary{})
		for _, p := range []*string{&sm.Title, &sm.Objective, &sm.Completed, &sm.CurrentWork, &sm.LikelyNext, &sm.Provider, &sm.Model} {
			*p = r.str()
		}
		sm.Created = r.time()
		sm.LastActivity = r.time()
		sm.Current = r.bool()
		sm.HumanPrompts = int(r.int())
		s.Summary = sm
	}
	s.Source = r.str()
	s.SourceSize = r.int()
	s.SourceMTime = r.int()
	s.CLIVersion = r.str()
	s.Origin = r.str()
	s.Model = r.str()
}

// blockSize is how many values of a kind share one allocation at most.
const blockSize = 1024

// block hands out pointers to values allocated in blocks that grow from
// 16 to blockSize: most snapshots have a context for every session and a
// runtime for a few.
type block[T any] struct{ vs []T }

func (b *block[T]) new(v T) *T {
	if len(b.vs) == cap(b.vs) {
		b.vs = make([]T, 0, min(blockSize, max(16, 2*cap(b.vs))))
	}
	b.vs = append(b.vs, v)
	return &b.vs[len(b.vs)-1]
}

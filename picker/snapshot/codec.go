package snapshot

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/bincodec"
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
	snapVersion = 3 // 1 was gob; 3 added Parent and Tokens
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
	hasTokens
	knownFlags = 1<<iota - 1
)

// minSessionBytes is less than any session's encoding: a count above
// body/minSessionBytes is corrupt (and would allocate too much).
const minSessionBytes = 32

var (
	errSnapFormat = errors.New("not a picker snapshot of this version")
)

// encodeSnapshot returns the encoding of ss and their short ids; the
// full-read fields (evidence, context curve, counts) are not stored.
func encodeSnapshot(ss []catalog.Session, short []string) []byte {
	var table, chunks snapWriter
	chunks.B = make([]byte, 0, 512*len(ss))
	table.Uint(uint64(len(ss)))
	n := (len(ss) + chunkSessions - 1) / chunkSessions
	table.Uint(uint64(n))
	for lo := 0; lo < len(ss); lo += chunkSessions {
		hi := min(lo+chunkSessions, len(ss))
		start := len(chunks.B)
		for i := lo; i < hi; i++ {
			chunks.Str(short[i])
			chunks.session(&ss[i])
		}
		table.Uint(uint64(hi - lo))
		table.Uint(uint64(len(chunks.B) - start))
	}
	body := append(table.B, chunks.B...)
	return bincodec.Frame(snapMagic, snapVersion, body)
}

// chunkSessions is how many sessions a chunk holds: the chunks decode in
// parallel (a 10,000-session snapshot in ~10 ms on one core).
const chunkSessions = 2048

// chunk is where one chunk's sessions go and where its bytes are.
type chunk struct{ first, n, off, len int }

// decodeSnapshot parses data; any error means it is not to be used. The
// strings returned share data's memory: data must not change afterwards.
func decodeSnapshot(data []byte) ([]catalog.Session, []string, error) {
	body, ok := bincodec.Unframe(data, snapMagic, snapVersion)
	if !ok {
		return nil, nil, errSnapFormat
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
	var panicked atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic here would end the process: a damaged snapshot is
			// only not used.
			defer func() {
				if recover() != nil {
					panicked.Store(true)
				}
			}()
			for k := int(next.Add(1)) - 1; k < len(chunks); k = int(next.Add(1)) - 1 {
				c := chunks[k]
				r := &snapReader{Reader: bincodec.NewReader(body[c.off : c.off+c.len])}
				for i := c.first; i < c.first+c.n && r.Err() == nil; i++ {
					short[i] = r.Str()
					r.session(&ss[i])
				}
				if !r.Done() {
					r.Fail()
				}
				errs[k] = r.Err()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil || panicked.Load() {
		return nil, nil, errSnapFormat
	}
	return ss, short, nil
}

// chunkTable reads the session count and the chunk table at the start of
// body: the chunks must hold count sessions and every byte after the
// table, each at least minSessionBytes a session.
func chunkTable(body []byte) (int, []chunk, error) {
	r := bincodec.NewReader(body)
	count, n := r.Count(), r.Count()
	if r.Err() != nil || count > len(body)/minSessionBytes || n > count {
		return 0, nil, errSnapFormat
	}
	chunks := make([]chunk, n)
	first, size := 0, 0
	for k := range chunks {
		c := chunk{first: first, n: r.Count(), len: r.Count()}
		if c.n == 0 || c.len < c.n*minSessionBytes {
			r.Fail()
		}
		first, size = first+c.n, size+c.len
		chunks[k] = c
	}
	if r.Err() != nil || first != count || size != len(body)-r.Off() {
		return 0, nil, errSnapFormat
	}
	off := r.Off()
	for k := range chunks {
		chunks[k].off = off
		off += chunks[k].len
	}
	return count, chunks, nil
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
	set(hasTokens, s.Tokens != nil)
	return f
}

// snapWriter writes the snapshot's values.
type snapWriter struct{ bincodec.Writer }

// session writes s's listing fields; readSession reads them back in the
// same order.
func (w *snapWriter) session(s *catalog.Session) {
	for _, v := range []string{s.Harness, s.ID, s.Cwd, s.IdentityRoot, s.GitBranch, s.GitOrigin, s.GitSHA} {
		w.Str(v)
	}
	w.Time(s.Created)
	w.Time(s.LastActivity)
	f := flagsOf(s)
	w.Uint(f)
	if f&hasLastHuman != 0 {
		w.Time(*s.LastHumanActivity)
	}
	w.Str(s.Title)
	w.Str(s.TitleSource)
	w.Str(s.FirstPrompt)
	w.Strs(s.RecentPrompts)
	if f&hasMessages != 0 {
		w.Int(int64(*s.Messages))
	}
	w.Str(s.State)
	if rt := s.Runtime; rt != nil {
		w.Int(int64(rt.PID))
		w.Str(rt.Status)
		w.Str(rt.Tmux)
		w.Str(rt.TmuxTarget)
	}
	if st := s.Stale; st != nil {
		w.Str(st.Reason)
		w.Time(st.At)
		w.Str(st.Fix)
	}
	if c := s.Context; c != nil {
		w.Int(c.Tokens)
		w.Int(c.Window)
		w.Bool(c.WindowKnown)
		w.Float(c.Percent)
	}
	if a := s.Archive; a != nil {
		w.Str(a.Path)
		w.Bool(a.Compressed)
		w.Str(a.Restore)
	}
	w.Strs(s.Resume.Argv)
	w.Str(s.Resume.Dir)
	if f&hasEnv != 0 {
		w.Uint(uint64(len(s.Resume.Env)))
		for k, v := range s.Resume.Env {
			w.Str(k)
			w.Str(v)
		}
	}
	if sm := s.Summary; sm != nil {
		for _, v := range []string{sm.Title, sm.Objective, sm.Completed, sm.CurrentWork, sm.LikelyNext, sm.Provider, sm.Model} {
			w.Str(v)
		}
		w.Time(sm.Created)
		w.Time(sm.LastActivity)
		w.Bool(sm.Current)
		w.Int(int64(sm.HumanPrompts))
	}
	w.Str(s.Source)
	w.Int(s.SourceSize)
	w.Int(s.SourceMTime)
	w.Str(s.CLIVersion)
	w.Str(s.Origin)
	w.Str(s.Model)
	w.Str(s.Parent)
	if t := s.Tokens; t != nil {
		for _, v := range []int64{t.Input, t.Output, t.Reasoning, t.CacheRead, t.CacheWrite} {
			w.Int(v)
		}
		w.Float(t.Cost)
	}
}

// snapReader reads the snapshot's values, with the blocks the
// pointed-to values and string slices are cut from.
type snapReader struct {
	*bincodec.Reader

	times    block[time.Time]
	ints     block[int]
	runtimes block[catalog.Runtime]
	stales   block[catalog.Stale]
	contexts block[catalog.ContextUsage]
	archives block[catalog.ArchiveRef]
	sums     block[catalog.Summary]
	strings  []string
}

// strs reads a string slice, cut from a shared block (capacity limited to
// its length, so an append copies). Empty is nil.
func (r *snapReader) strs() []string {
	n := r.Count()
	if n == 0 {
		return nil
	}
	if len(r.strings)+n > cap(r.strings) {
		r.strings = make([]string, 0, max(n, blockSize))
	}
	start := len(r.strings)
	for range n {
		r.strings = append(r.strings, r.Str())
	}
	return r.strings[start:len(r.strings):len(r.strings)]
}

func (r *snapReader) session(s *catalog.Session) {
	for _, p := range []*string{&s.Harness, &s.ID, &s.Cwd, &s.IdentityRoot, &s.GitBranch, &s.GitOrigin, &s.GitSHA} {
		*p = r.Str()
	}
	s.Created = r.Time()
	s.LastActivity = r.Time()
	f := r.Uint()
	if f&^knownFlags != 0 {
		r.Fail()
		return
	}
	if f&hasLastHuman != 0 {
		s.LastHumanActivity = r.times.new(r.Time())
	}
	s.Title = r.Str()
	s.TitleSource = r.Str()
	s.FirstPrompt = r.Str()
	s.RecentPrompts = r.strs()
	if f&hasMessages != 0 {
		s.Messages = r.ints.new(int(r.Int()))
	}
	s.Archived = f&isArchived != 0
	s.State = r.Str()
	if f&hasRuntime != 0 {
		s.Runtime = r.runtimes.new(catalog.Runtime{PID: int(r.Int()), Status: r.Str(), Tmux: r.Str(), TmuxTarget: r.Str()})
	}
	if f&hasStale != 0 {
		s.Stale = r.stales.new(catalog.Stale{Reason: r.Str(), At: r.Time(), Fix: r.Str()})
	}
	if f&hasContext != 0 {
		s.Context = r.contexts.new(catalog.ContextUsage{Tokens: r.Int(), Window: r.Int(), WindowKnown: r.Bool(), Percent: r.Float()})
	}
	if f&hasArchive != 0 {
		s.Archive = r.archives.new(catalog.ArchiveRef{Path: r.Str(), Compressed: r.Bool(), Restore: r.Str()})
	}
	s.Resume.Argv = r.strs()
	s.Resume.Dir = r.Str()
	if f&hasEnv != 0 {
		n := r.Count()
		s.Resume.Env = make(map[string]string, n)
		for range n {
			k := r.Str()
			s.Resume.Env[k] = r.Str()
		}
	}
	if f&hasSummary != 0 {
		sm := r.sums.new(catalog.Summary{})
		for _, p := range []*string{&sm.Title, &sm.Objective, &sm.Completed, &sm.CurrentWork, &sm.LikelyNext, &sm.Provider, &sm.Model} {
			*p = r.Str()
		}
		sm.Created = r.Time()
		sm.LastActivity = r.Time()
		sm.Current = r.Bool()
		sm.HumanPrompts = int(r.Int())
		s.Summary = sm
	}
	s.Source = r.Str()
	s.SourceSize = r.Int()
	s.SourceMTime = r.Int()
	s.CLIVersion = r.Str()
	s.Origin = r.Str()
	s.Model = r.Str()
	s.Parent = r.Str()
	if f&hasTokens != 0 {
		t := &agent.TokenSums{}
		for _, p := range []*int64{&t.Input, &t.Output, &t.Reasoning, &t.CacheRead, &t.CacheWrite} {
			*p = r.Int()
		}
		t.Cost = r.Float()
		s.Tokens = t
	}
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

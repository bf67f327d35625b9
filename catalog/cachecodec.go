package catalog

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"
)

// The cache file's encoding, written by hand: gob spent 35–40 ms of a warm
// list of 10,000 sessions decoding it (reflection per field, a string
// allocation per string). Here a decode is one pass over the bytes: the
// strings share the bytes read (no allocation, no copy), the summaries
// are allocated in blocks.
//
//	magic (8 bytes) | version (uvarint) | CRC-32C of the rest (4 bytes, LE) | body
//
// The body: the count stamp, the entries (path, size, mtime, kind, then
// the kind's fields in a fixed order), the directory records, the state
// database rows (codex_threads.go). Strings are
// a uvarint length and the bytes; integers varints; times their
// MarshalBinary form (what gob stored: the instant and the zone offset).
// Any change to what is stored changes cacheVersion: a file of another
// version, another magic, a bad checksum or one that does not parse to its
// last byte is not used (the cache is rebuilt), never misread.
const cacheMagic = "tether\x00c"

// Entry kinds.
const (
	kindNone   = 0
	kindClaude = 1
	kindCodex  = 2
)

// valueBlock is how many decoded values share one allocation.
const valueBlock = 2048

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var errCacheFormat = errors.New("not a cache file of this version")

// encodeCache returns f's encoding.
func encodeCache(f cacheFile) []byte {
	w := &cacheWriter{}
	w.str(f.CountStamp)
	w.uint(uint64(len(f.Entries)))
	for path, e := range f.Entries {
		w.str(path)
		w.int(e.Size)
		w.int(e.MTime)
		switch {
		case e.Claude != nil:
			w.b = append(w.b, kindClaude)
			w.claude(e.Claude)
		case e.Codex != nil:
			w.b = append(w.b, kindCodex)
			w.codex(e.Codex)
		default:
			w.b = append(w.b, kindNone)
		}
	}
	w.uint(uint64(len(f.Dirs)))
	for path, d := range f.Dirs {
		w.str(path)
		w.int(d.MTime)
		w.int(d.Checked)
		w.int(d.Newest)
		w.uint(uint64(len(d.Files)))
		for _, name := range d.Files {
			w.str(name)
		}
	}
	w.uint(uint64(len(f.DBs)))
	for path, rec := range f.DBs {
		w.str(path)
		st := rec.Stamp
		for _, v := range []int64{st.DBSize, st.DBMTime, st.WALSize, st.WALMTime, rec.Checked} {
			w.int(v)
		}
		w.uint(st.DBIno)
		w.uint(st.WALIno)
		w.uint(uint64(len(rec.Rows)))
		for i := range rec.Rows {
			w.row(&rec.Rows[i])
		}
	}
	head := append([]byte(cacheMagic), binary.AppendUvarint(nil, cacheVersion)...)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(w.b, castagnoli))
	return append(head, w.b...)
}

// decodeCache parses data; any error means data is not to be used. The
// strings it returns share data's memory (no copy): data must not change
// afterwards.
func decodeCache(data []byte) (cacheFile, error) {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return cacheFile{}, errCacheFormat
	}
	rest := data[len(cacheMagic):]
	v, n := binary.Uvarint(rest)
	if n <= 0 || v != cacheVersion || len(rest) < n+4 {
		return cacheFile{}, errCacheFormat
	}
	sum := binary.LittleEndian.Uint32(rest[n:])
	body := rest[n+4:]
	if crc32.Checksum(body, castagnoli) != sum {
		return cacheFile{}, errCacheFormat
	}
	r := &cacheReader{b: body, s: bytesString(body, true)}
	f := cacheFile{Version: cacheVersion, CountStamp: r.str()}
	ne := r.count()
	// A real entry takes well over 32 bytes: a larger count only
	// grows the map as it goes.
	f.Entries = make(map[string]*cacheEntry, min(ne, len(body)/32))
	// The values in blocks of up to valueBlock, not one allocation each
	// (blocks, not one slice of ne: a count is trusted only so far).
	var (
		entries []cacheEntry
		claudes []claudeSummary
		codexes []codexTail
	)
	for i := range ne {
		path := r.str()
		if len(entries) == cap(entries) {
			entries = make([]cacheEntry, 0, min(ne-i, valueBlock))
		}
		entries = append(entries, cacheEntry{Size: r.int(), MTime: r.int()})
		e := &entries[len(entries)-1]
		switch r.byte() {
		case kindNone:
		case kindClaude:
			if len(claudes) == cap(claudes) {
				claudes = make([]claudeSummary, 0, min(ne-i, valueBlock))
			}
			claudes = append(claudes, r.claude())
			e.Claude = &claudes[len(claudes)-1]
		case kindCodex:
			if len(codexes) == cap(codexes) {
				codexes = make([]codexTail, 0, min(ne-i, valueBlock))
			}
			codexes = append(codexes, r.codex())
			e.Codex = &codexes[len(codexes)-1]
		default:
			r.fail()
		}
		if r.err != nil {
			return cacheFile{}, r.err
		}
		f.Entries[path] = e
	}
	nd := r.count()
	f.Dirs = make(map[string]dirRecord, nd)
	for range nd {
		path := r.str()
		d := dirRecord{MTime: r.int(), Checked: r.int(), Newest: r.int()}
		if nf := r.count(); nf > 0 {
			d.Files = make([]string, nf)
			for i := range d.Files {
				d.Files[i] = r.str()
			}
		}
		if r.err != nil {
			return cacheFile{}, r.err
		}
		f.Dirs[path] = d
	}
	ndb := r.count()
	f.DBs = make(map[string]*threadsRecord, min(ndb, 16))
	for range ndb {
		path := r.str()
		rec := &threadsRecord{}
		st := &rec.Stamp
		for _, p := range []*int64{&st.DBSize, &st.DBMTime, &st.WALSize, &st.WALMTime, &rec.Checked} {
			*p = r.int()
		}
		st.DBIno, st.WALIno = r.uint(), r.uint()
		if nr := r.count(); nr > 0 {
			rec.Rows = make([]codexRow, 0, min(nr, valueBlock))
			for range nr {
				rec.Rows = append(rec.Rows, r.row())
			}
		}
		if r.err != nil {
			return cacheFile{}, r.err
		}
		f.DBs[path] = rec
	}
	if r.err != nil || len(r.b) != r.off {
		return cacheFile{}, errCacheFormat
	}
	return f, nil
}

type cacheWriter struct{ b []byte }

func (w *cacheWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *cacheWriter) int(v int64)   { w.b = binary.AppendVarint(w.b, v) }

func (w *cacheWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *cacheWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *cacheWriter) time(t time.Time) {
	b, err := t.MarshalBinary()
	if err != nil {
		// A zone offset that is not a whole minute, or a year beyond
		// int16: not from a transcript; stored as UTC.
		b, _ = t.UTC().MarshalBinary()
	}
	w.uint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *cacheWriter) msgs(m msgState) {
	w.bool(m.Known)
	w.int(int64(m.Count.N))
	w.int(m.Count.Off)
	w.uint(m.Count.Last)
	w.uint(m.Ino)
	w.uint(uint64(m.Head))
	w.int(int64(m.HeadLen))
}

func (w *cacheWriter) claude(s *claudeSummary) {
	for _, v := range []string{s.ID, s.Cwd, s.Branch, s.Version, s.Entrypoint, s.Model} {
		w.str(v)
	}
	w.time(s.Created)
	w.time(s.LastActivity)
	w.time(s.LastHuman)
	for _, v := range []string{s.FirstPrompt, s.CustomTitle, s.AITitle, s.LastPrompt, s.Summary} {
		w.str(v)
	}
	w.int(s.Tokens)
	w.bool(s.HasUsage)
	w.int(int64(s.Records))
	w.str(s.Problem)
	w.msgs(s.Msgs)
}

func (w *cacheWriter) codex(t *codexTail) {
	for _, v := range []string{t.ID, t.Cwd, t.Source, t.CLIVersion, t.Model, t.GitBranch, t.GitSHA, t.GitOrigin, t.FirstPrompt} {
		w.str(v)
	}
	w.time(t.Created)
	w.time(t.Last)
	w.time(t.LastHuman)
	w.int(t.Tokens)
	w.int(t.Window)
	w.bool(t.HasUsage)
	w.int(int64(t.Valid))
	w.int(t.Size)
	w.msgs(t.Msgs)
}

func (w *cacheWriter) row(t *codexRow) {
	for _, v := range []string{t.ID, t.RolloutPath, t.Cwd, t.Source, t.Title, t.Name, t.FirstUser,
		t.GitSHA, t.GitBranch, t.GitOrigin, t.CLIVersion, t.Model} {
		w.str(v)
	}
	w.time(t.Created)
	w.time(t.Updated)
	w.bool(t.Archived)
}

// cacheReader reads the body: b and s are the same memory (strings are
// substrings of s). After the first error every read returns
// a zero value and err stays set.
type cacheReader struct {
	b   []byte
	s   string
	off int
	err error
}

func (r *cacheReader) fail() {
	if r.err == nil {
		r.err = errCacheFormat
	}
	r.off = len(r.b)
}

func (r *cacheReader) uint() uint64 {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

func (r *cacheReader) int() int64 {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// count is a number of items to come, each at least one byte: a larger
// one than the bytes left is corrupt (and would allocate too much).
func (r *cacheReader) count() int {
	v := r.uint()
	if v > uint64(len(r.b)-r.off) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *cacheReader) byte() byte {
	if r.off >= len(r.b) {
		r.fail()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *cacheReader) bool() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail()
	return false
}

func (r *cacheReader) bytes() (start, end int) {
	n := r.count()
	return r.off, r.off + n
}

func (r *cacheReader) str() string {
	start, end := r.bytes()
	r.off = end
	return r.s[start:end]
}

func (r *cacheReader) time() time.Time {
	start, end := r.bytes()
	r.off = end
	var t time.Time
	if r.err == nil && t.UnmarshalBinary(r.b[start:end]) != nil {
		r.fail()
	}
	return t
}

func (r *cacheReader) msgs() msgState {
	var m msgState
	m.Known = r.bool()
	m.Count.N = int(r.int())
	m.Count.Off = r.int()
	m.Count.Last = r.uint()
	m.Ino = r.uint()
	m.Head = uint32(r.uint())
	m.HeadLen = int32(r.int())
	return m
}

func (r *cacheReader) claude() claudeSummary {
	var s claudeSummary
	for _, p := range []*string{&s.ID, &s.Cwd, &s.Branch, &s.Version, &s.Entrypoint, &s.Model} {
		*p = r.str()
	}
	s.Created, s.LastActivity, s.LastHuman = r.time(), r.time(), r.time()
	for _, p := range []*string{&s.FirstPrompt, &s.CustomTitle, &s.AITitle, &s.LastPrompt, &s.Summary} {
		*p = r.str()
	}
	s.Tokens = r.int()
	s.HasUsage = r.bool()
	s.Records = int(r.int())
	s.Problem = r.str()
	s.Msgs = r.msgs()
	return s
}

func (r *cacheReader) codex() codexTail {
	var t codexTail
	for _, p := range []*string{&t.ID, &t.Cwd, &t.Source, &t.CLIVersion, &t.Model, &t.GitBranch, &t.GitSHA, &t.GitOrigin, &t.FirstPrompt} {
		*p = r.str()
	}
	t.Created, t.Last, t.LastHuman = r.time(), r.time(), r.time()
	t.Tokens = r.int()
	t.Window = r.int()
	t.HasUsage = r.bool()
	t.Valid = int(r.int())
	t.Size = r.int()
	t.Msgs = r.msgs()
	return t
}

func (r *cacheReader) row() codexRow {
	var t codexRow
	for _, p := range []*string{&t.ID, &t.RolloutPath, &t.Cwd, &t.Source, &t.Title, &t.Name, &t.FirstUser,
		&t.GitSHA, &t.GitBranch, &t.GitOrigin, &t.CLIVersion, &t.Model} {
		*p = r.str()
	}
	t.Created, t.Updated = r.time(), r.time()
	t.Archived = r.bool()
	return t
}

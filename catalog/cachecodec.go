package catalog

import (
	"errors"

	"github.com/tether-dev/tether/internal/bincodec"
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

var errCacheFormat = errors.New("not a cache file of this version")

// encodeCache returns f's encoding.
func encodeCache(f cacheFile) []byte {
	w := &cacheWriter{}
	w.Str(f.CountStamp)
	w.Uint(uint64(len(f.Entries)))
	for path, e := range f.Entries {
		w.Str(path)
		w.Int(e.Size)
		w.Int(e.MTime)
		switch {
		case e.Claude != nil:
			w.Byte(kindClaude)
			w.claude(e.Claude)
		case e.Codex != nil:
			w.Byte(kindCodex)
			w.codex(e.Codex)
		default:
			w.Byte(kindNone)
		}
	}
	w.Uint(uint64(len(f.Dirs)))
	for path, d := range f.Dirs {
		w.Str(path)
		w.Int(d.MTime)
		w.Int(d.Checked)
		w.Int(d.Newest)
		w.Uint(uint64(len(d.Files)))
		for _, name := range d.Files {
			w.Str(name)
		}
	}
	w.Uint(uint64(len(f.DBs)))
	for path, rec := range f.DBs {
		w.Str(path)
		st := rec.Stamp
		for _, v := range []int64{st.DBSize, st.DBMTime, st.WALSize, st.WALMTime, rec.Checked} {
			w.Int(v)
		}
		w.Uint(st.DBIno)
		w.Uint(st.WALIno)
		w.Uint(uint64(len(rec.Rows)))
		for i := range rec.Rows {
			w.row(&rec.Rows[i])
		}
	}
	return bincodec.Frame(cacheMagic, cacheVersion, w.B)
}

// decodeCache parses data; any error means data is not to be used. The
// strings it returns share data's memory (no copy): data must not change
// afterwards.
func decodeCache(data []byte) (cacheFile, error) {
	body, ok := bincodec.Unframe(data, cacheMagic, cacheVersion)
	if !ok {
		return cacheFile{}, errCacheFormat
	}
	r := cacheReader{bincodec.NewReader(body)}
	f := cacheFile{Version: cacheVersion, CountStamp: r.Str()}
	ne := r.Count()
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
		path := r.Str()
		if len(entries) == cap(entries) {
			entries = make([]cacheEntry, 0, min(ne-i, valueBlock))
		}
		entries = append(entries, cacheEntry{Size: r.Int(), MTime: r.Int()})
		e := &entries[len(entries)-1]
		switch r.Byte() {
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
			r.Fail()
		}
		if r.Err() != nil {
			return cacheFile{}, errCacheFormat
		}
		f.Entries[path] = e
	}
	nd := r.Count()
	f.Dirs = make(map[string]dirRecord, nd)
	for range nd {
		path := r.Str()
		d := dirRecord{MTime: r.Int(), Checked: r.Int(), Newest: r.Int()}
		if nf := r.Count(); nf > 0 {
			d.Files = make([]string, nf)
			for i := range d.Files {
				d.Files[i] = r.Str()
			}
		}
		if r.Err() != nil {
			return cacheFile{}, errCacheFormat
		}
		f.Dirs[path] = d
	}
	ndb := r.Count()
	f.DBs = make(map[string]*threadsRecord, min(ndb, 16))
	for range ndb {
		path := r.Str()
		rec := &threadsRecord{}
		st := &rec.Stamp
		for _, p := range []*int64{&st.DBSize, &st.DBMTime, &st.WALSize, &st.WALMTime, &rec.Checked} {
			*p = r.Int()
		}
		st.DBIno, st.WALIno = r.Uint(), r.Uint()
		if nr := r.Count(); nr > 0 {
			rec.Rows = make([]codexRow, 0, min(nr, valueBlock))
			for range nr {
				rec.Rows = append(rec.Rows, r.row())
			}
		}
		if r.Err() != nil {
			return cacheFile{}, errCacheFormat
		}
		f.DBs[path] = rec
	}
	if !r.Done() {
		return cacheFile{}, errCacheFormat
	}
	return f, nil
}

// cacheWriter writes the cache's values.
type cacheWriter struct{ bincodec.Writer }

func (w *cacheWriter) msgs(m msgState) {
	w.Bool(m.Known)
	w.Int(int64(m.Count.N))
	w.Int(m.Count.Off)
	w.Uint(m.Count.Last)
	w.Uint(m.Ino)
	w.Uint(uint64(m.Head))
	w.Int(int64(m.HeadLen))
}

func (w *cacheWriter) claude(s *claudeSummary) {
	for _, v := range []string{s.ID, s.Cwd, s.Branch, s.Version, s.Entrypoint, s.Model} {
		w.Str(v)
	}
	w.Time(s.Created)
	w.Time(s.LastActivity)
	w.Time(s.LastHuman)
	for _, v := range []string{s.FirstPrompt, s.CustomTitle, s.AITitle, s.LastPrompt, s.Summary} {
		w.Str(v)
	}
	w.Int(s.Tokens)
	w.Bool(s.HasUsage)
	w.Int(int64(s.Records))
	w.Str(s.Problem)
	w.msgs(s.Msgs)
}

func (w *cacheWriter) codex(t *codexTail) {
	for _, v := range []string{t.ID, t.Cwd, t.Source, t.CLIVersion, t.Model, t.GitBranch, t.GitSHA, t.GitOrigin, t.FirstPrompt} {
		w.Str(v)
	}
	w.Time(t.Created)
	w.Time(t.Last)
	w.Time(t.LastHuman)
	w.Int(t.Tokens)
	w.Int(t.Window)
	w.Bool(t.HasUsage)
	w.Int(int64(t.Valid))
	w.Int(t.Size)
	w.msgs(t.Msgs)
}

func (w *cacheWriter) row(t *codexRow) {
	for _, v := range []string{t.ID, t.RolloutPath, t.Cwd, t.Source, t.Title, t.Name, t.FirstUser,
		t.GitSHA, t.GitBranch, t.GitOrigin, t.CLIVersion, t.Model} {
		w.Str(v)
	}
	w.Time(t.Created)
	w.Time(t.Updated)
	w.Bool(t.Archived)
}

// cacheReader reads the cache's values.
type cacheReader struct{ *bincodec.Reader }

func (r *cacheReader) msgs() msgState {
	var m msgState
	m.Known = r.Bool()
	m.Count.N = int(r.Int())
	m.Count.Off = r.Int()
	m.Count.Last = r.Uint()
	m.Ino = r.Uint()
	m.Head = uint32(r.Uint())
	m.HeadLen = int32(r.Int())
	return m
}

func (r *cacheReader) claude() claudeSummary {
	var s claudeSummary
	for _, p := range []*string{&s.ID, &s.Cwd, &s.Branch, &s.Version, &s.Entrypoint, &s.Model} {
		*p = r.Str()
	}
	s.Created, s.LastActivity, s.LastHuman = r.Time(), r.Time(), r.Time()
	for _, p := range []*string{&s.FirstPrompt, &s.CustomTitle, &s.AITitle, &s.LastPrompt, &s.Summary} {
		*p = r.Str()
	}
	s.Tokens = r.Int()
	s.HasUsage = r.Bool()
	s.Records = int(r.Int())
	s.Problem = r.Str()
	s.Msgs = r.msgs()
	return s
}

func (r *cacheReader) codex() codexTail {
	var t codexTail
	for _, p := range []*string{&t.ID, &t.Cwd, &t.Source, &t.CLIVersion, &t.Model, &t.GitBranch, &t.GitSHA, &t.GitOrigin, &t.FirstPrompt} {
		*p = r.Str()
	}
	t.Created, t.Last, t.LastHuman = r.Time(), r.Time(), r.Time()
	t.Tokens = r.Int()
	t.Window = r.Int()
	t.HasUsage = r.Bool()
	t.Valid = int(r.Int())
	t.Size = r.Int()
	t.Msgs = r.msgs()
	return t
}

func (r *cacheReader) row() codexRow {
	var t codexRow
	for _, p := range []*string{&t.ID, &t.RolloutPath, &t.Cwd, &t.Source, &t.Title, &t.Name, &t.FirstUser,
		&t.GitSHA, &t.GitBranch, &t.GitOrigin, &t.CLIVersion, &t.Model} {
		*p = r.Str()
	}
	t.Created, t.Updated = r.Time(), r.Time()
	t.Archived = r.Bool()
	return t
}

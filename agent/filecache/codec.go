package filecache

import (
	"errors"

	"github.com/tether-dev/tether/internal/bincodec"
)

// The cache file's encoding, written by hand: gob spent 35–40 ms of a warm
// list of 10,000 sessions decoding it (reflection per field, a string
// allocation per string). Here a decode is one pass over the bytes: the
// strings share the bytes read (no allocation, no copy), the values are
// allocated in blocks.
//
//	magic (8 bytes) | version (uvarint) | CRC-32C of the rest (4 bytes, LE) | body
//
// The body: the codec's Kind, the count stamp, the entries (path, size,
// mtime, then the value as the codec writes it), the directory records,
// the reader's records (key, then the record as the codec writes it).
// Strings are a uvarint length and the bytes; integers varints; times
// their MarshalBinary form (the instant and the zone offset). Any change
// to what is stored changes Version (or the codec's Kind): a file of
// another version or kind, another magic, a bad checksum or one that
// does not parse to its last byte is not used (the cache is rebuilt),
// never misread.
const magic = "tether\x00c"

// Version changes whenever the file's layout changes shape or meaning;
// an old cache is then ignored, never misread.
// 2: gob instead of JSON (a warm list of 10,000 sessions spent 290 ms
// decoding JSON; gob decodes the whole file in one pass, typed).
// 3: typed values instead of interfaces (gob spent most of a warm list's
// 40 ms decode on interface type names) and directory records.
// 4: message counts in the summaries, and the search index's stamp they
// were last filled from.
// 5: a hand-written encoding instead of gob, with a checksum (gob's
// decode of 10,000 summaries was ~35 ms of a warm list), and the Codex
// state database's rows.
// 6: the values' kind named by their reader's codec (the cache no longer
// knows the agents), in place of a kind byte per entry.
// The files keep their .gob names: a version-4 file is not this format's
// magic, so it is ignored and replaced by the next listing.
const Version = 6

// ValueBlock is how many decoded values share one allocation.
const ValueBlock = 2048

var errFormat = errors.New("not a cache file of this version")

// file is a decoded cache.
type file[T, R any] struct {
	stamp   string
	entries map[string]*entry[T]
	dirs    map[string]DirRecord
	recs    map[string]*record[R]
}

// encode returns c's encoding (c locked).
func encode[T, R any](c *Cache[T, R]) []byte {
	w := &bincodec.Writer{}
	w.Str(c.codec.Kind)
	w.Str(c.stamp)
	w.Uint(uint64(len(c.entries)))
	for path, e := range c.entries {
		w.Str(path)
		w.Int(e.Size)
		w.Int(e.MTime)
		c.codec.Put(w, e.V)
	}
	w.Uint(uint64(len(c.dirs)))
	for path, d := range c.dirs {
		w.Str(path)
		w.Int(d.MTime)
		w.Int(d.Checked)
		w.Int(d.Newest)
		w.Uint(uint64(len(d.Files)))
		for _, name := range d.Files {
			w.Str(name)
		}
	}
	if c.codec.PutRecord == nil {
		w.Uint(0)
	} else {
		w.Uint(uint64(len(c.recs)))
		for key, rec := range c.recs {
			w.Str(key)
			c.codec.PutRecord(w, &rec.V)
		}
	}
	return bincodec.Frame(magic, Version, w.B)
}

// decode parses data; any error means data is not to be used. The
// strings it returns share data's memory (no copy): data must not change
// afterwards.
func decode[T, R any](data []byte, codec *Codec[T, R]) (file[T, R], error) {
	body, ok := bincodec.Unframe(data, magic, Version)
	if !ok {
		return file[T, R]{}, errFormat
	}
	r := bincodec.NewReader(body)
	if r.Str() != codec.Kind {
		return file[T, R]{}, errFormat
	}
	f := file[T, R]{stamp: r.Str()}
	ne := r.Count()
	// A real entry takes well over 32 bytes: a larger count only
	// grows the map as it goes.
	f.entries = make(map[string]*entry[T], min(ne, len(body)/32))
	// The values in blocks of up to ValueBlock, not one allocation each
	// (blocks, not one slice of ne: a count is trusted only so far).
	var (
		entries []entry[T]
		values  []T
	)
	for i := range ne {
		path := r.Str()
		if len(entries) == cap(entries) {
			entries = make([]entry[T], 0, min(ne-i, ValueBlock))
			values = make([]T, 0, min(ne-i, ValueBlock))
		}
		entries = append(entries, entry[T]{Size: r.Int(), MTime: r.Int()})
		values = append(values, codec.Get(r))
		e := &entries[len(entries)-1]
		e.V = &values[len(values)-1]
		if r.Err() != nil {
			return file[T, R]{}, errFormat
		}
		f.entries[path] = e
	}
	if !decodeDirs(r, &f) || !decodeRecords(r, &f, codec) || !r.Done() {
		return file[T, R]{}, errFormat
	}
	return f, nil
}

func decodeDirs[T, R any](r *bincodec.Reader, f *file[T, R]) bool {
	nd := r.Count()
	f.dirs = make(map[string]DirRecord, nd)
	for range nd {
		path := r.Str()
		d := DirRecord{MTime: r.Int(), Checked: r.Int(), Newest: r.Int()}
		if nf := r.Count(); nf > 0 {
			d.Files = make([]string, nf)
			for i := range d.Files {
				d.Files[i] = r.Str()
			}
		}
		if r.Err() != nil {
			return false
		}
		f.dirs[path] = d
	}
	return true
}

func decodeRecords[T, R any](r *bincodec.Reader, f *file[T, R], codec *Codec[T, R]) bool {
	nr := r.Count()
	f.recs = make(map[string]*record[R], min(nr, 16))
	if nr > 0 && codec.GetRecord == nil {
		return false
	}
	for range nr {
		key := r.Str()
		rec := &record[R]{V: codec.GetRecord(r)}
		if r.Err() != nil {
			return false
		}
		f.recs[key] = rec
	}
	return true
}

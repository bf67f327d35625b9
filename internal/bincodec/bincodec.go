// Package bincodec is the framing and the value encoding of tether's own
// binary caches (the catalog's caches, the picker's snapshot), written by
// hand because gob spent tens of milliseconds of a warm listing or a
// first paint on reflection, a string allocation per string and a
// GobDecode call per time. A decode is one pass over the bytes and its
// strings share them (no allocation, no copy).
//
//	magic (8 bytes) | version (uvarint) | CRC-32C of the body (4 bytes, LE) | body
//
// In a body, strings are a uvarint length and the bytes, integers
// varints, floats their IEEE bits (8 bytes, LE), times their
// MarshalBinary form (the instant and the zone offset). A file of another
// magic or version, with a bad checksum, or that does not parse to its
// last byte is not used, never misread: each user rebuilds what it
// caches instead.
package bincodec

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"time"
	"unsafe"
)

// ErrFormat is any decoding error: the bytes are not of the expected
// format or version, or are damaged.
var ErrFormat = errors.New("not of this format or version")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Frame returns magic, version and body's checksum followed by body.
func Frame(magic string, version uint64, body []byte) []byte {
	head := make([]byte, 0, len(magic)+binary.MaxVarintLen64+4+len(body))
	head = append(head, magic...)
	head = binary.AppendUvarint(head, version)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(body, castagnoli))
	return append(head, body...)
}

// Unframe returns the body of data when data is framed with magic and
// version and its checksum matches.
func Unframe(data []byte, magic string, version uint64) ([]byte, bool) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, false
	}
	rest := data[len(magic):]
	v, n := binary.Uvarint(rest)
	if n <= 0 || v != version || len(rest) < n+4 {
		return nil, false
	}
	sum := binary.LittleEndian.Uint32(rest[n:])
	body := rest[n+4:]
	return body, crc32.Checksum(body, castagnoli) == sum
}

// Writer appends values to B.
type Writer struct{ B []byte }

func (w *Writer) Uint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }
func (w *Writer) Int(v int64)   { w.B = binary.AppendVarint(w.B, v) }
func (w *Writer) Byte(v byte)   { w.B = append(w.B, v) }

func (w *Writer) Str(s string) {
	w.Uint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// Strs writes a count and the strings.
func (w *Writer) Strs(ss []string) {
	w.Uint(uint64(len(ss)))
	for _, s := range ss {
		w.Str(s)
	}
}

func (w *Writer) Bool(v bool) {
	if v {
		w.B = append(w.B, 1)
	} else {
		w.B = append(w.B, 0)
	}
}

func (w *Writer) Float(v float64) { w.Fixed64(math.Float64bits(v)) }

// Fixed64 writes v in 8 bytes (a hash's varint takes 9 or 10).
func (w *Writer) Fixed64(v uint64) { w.B = binary.LittleEndian.AppendUint64(w.B, v) }

func (w *Writer) Time(t time.Time) {
	b, err := t.MarshalBinary()
	if err != nil {
		// A zone offset that is not a whole minute, or a year beyond
		// int16: not from a transcript; stored as UTC.
		b, _ = t.UTC().MarshalBinary()
	}
	w.Uint(uint64(len(b)))
	w.B = append(w.B, b...)
}

// Reader reads values from a body. After the first error every read
// returns a zero value and Err stays set.
type Reader struct {
	b   []byte
	s   string // b's bytes, for strings that share them
	off int
	err error
}

// NewReader reads b; the strings it returns share b's memory, so b must
// not change while they are used.
func NewReader(b []byte) *Reader {
	r := &Reader{b: b}
	if len(b) > 0 {
		r.s = unsafe.String(unsafe.SliceData(b), len(b))
	}
	return r
}

// Err is ErrFormat once a read failed.
func (r *Reader) Err() error { return r.err }

// Off is how many bytes were read.
func (r *Reader) Off() int { return r.off }

// Done reports whether every byte was read without an error.
func (r *Reader) Done() bool { return r.err == nil && r.off == len(r.b) }

// Fail marks the input as not of the format.
func (r *Reader) Fail() {
	if r.err == nil {
		r.err = ErrFormat
	}
	r.off = len(r.b)
}

func (r *Reader) Uint() uint64 {
	if r.off < len(r.b) && r.b[r.off] < 0x80 { // the common one-byte case
		r.off++
		return uint64(r.b[r.off-1])
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.off += n
	return v
}

func (r *Reader) Int() int64 {
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.off += n
	return v
}

// Count reads a number of items to come, each at least one byte: one
// larger than the bytes left is corrupt (and would allocate too much).
func (r *Reader) Count() int {
	v := r.Uint()
	if v > uint64(len(r.b)-r.off) {
		r.Fail()
		return 0
	}
	return int(v)
}

func (r *Reader) Byte() byte {
	if r.off >= len(r.b) {
		r.Fail()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool() bool {
	switch r.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail()
	return false
}

func (r *Reader) Str() string {
	n := r.Count()
	r.off += n
	return r.s[r.off-n : r.off]
}

func (r *Reader) Float() float64 { return math.Float64frombits(r.Fixed64()) }

func (r *Reader) Fixed64() uint64 {
	if len(r.b)-r.off < 8 {
		r.Fail()
		return 0
	}
	r.off += 8
	return binary.LittleEndian.Uint64(r.b[r.off-8:])
}

func (r *Reader) Time() time.Time {
	n := r.Count()
	r.off += n
	var t time.Time
	if r.err == nil && t.UnmarshalBinary(r.b[r.off-n:r.off]) != nil {
		r.Fail()
	}
	return t
}

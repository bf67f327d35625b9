package trim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tether-dev/tether/agent/jsonl"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// ErrChanged means the transcript changed between the two passes (the
// agent appended to it): the trim is abandoned.
var ErrChanged = errors.New("the transcript changed while it was being trimmed (is the session running?); nothing was modified")

// Plan is pass 1: it indexes the transcript and decides what to keep.
type Plan struct {
	sr     *scanResult
	edits  []edit
	Report *Report
}

// MakePlan reads a transcript once and decides, by opts, what each record
// becomes. Memory is under a hundred bytes per record, plus the uuids and
// tool ids once each, plus the largest line.
func MakePlan(r io.Reader, opts Options) (*Plan, error) {
	sr, err := scan(r, opts.AllowUnknown)
	if err != nil {
		return nil, err
	}
	edits, rep, err := makePlan(sr, opts)
	if err != nil {
		return nil, err
	}
	rep.BytesBefore = sr.bytes
	return &Plan{sr: sr, edits: edits, Report: rep}, nil
}

// takeBuffer hands the line buffer on (to the validator); p must not be
// applied again.
func (p *Plan) takeBuffer() []byte {
	b := p.sr.buf
	p.sr.buf = nil
	return b
}

// Apply is pass 2: it reads the same transcript again and writes the
// trimmed one to w, copying kept records byte for byte except for the
// fields the plan changes. It returns the bytes written. From a reader
// with random access (a file) it reads only the kept records.
func (p *Plan) Apply(r io.Reader, w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, writeBuffer)
	var err error
	if ra, ok := r.(io.ReaderAt); ok {
		err = p.applyAt(ra, bw)
	} else {
		err = p.apply(r, bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	return cw.n, err
}

// writeBuffer is the size of pass 2's writes.
const writeBuffer = 1 << 20

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// apply reads every line of r, in order, checking each against the plan.
func (p *Plan) apply(r io.Reader, w *bufio.Writer) error {
	lr := newLineReaderBuf(r, p.sr.buf)
	defer func() { p.sr.buf = lr.take() }()
	recs := p.sr.recs
	for i := 0; ; i++ {
		line, nl, err := lr.next()
		if errors.Is(err, io.EOF) {
			if i != len(recs) {
				return ErrChanged
			}
			return nil
		}
		if err != nil {
			return err
		}
		if i >= len(recs) || lineSize(line, nl) != recs[i].size {
			return ErrChanged
		}
		if err := p.write(w, i, line); err != nil {
			return err
		}
	}
}

// applyAt reads only the runs of kept records, each at its offset: a keep
// trim of a 1 GB transcript keeps a few percent of it. A file that is not
// the size pass 1 read has changed. (A change of the same size elsewhere
// is the File's modification-time check's to find.)
func (p *Plan) applyAt(ra io.ReaderAt, w *bufio.Writer) error {
	if size, ok := sizeOf(ra); ok && size != p.sr.bytes {
		return ErrChanged
	}
	recs := p.sr.recs
	lr := newLineReaderBuf(nil, p.sr.buf)
	defer func() { p.sr.buf = lr.take() }()
	var off int64
	for i := 0; i < len(recs); {
		if p.edits[i].drop {
			off += recs[i].size
			i++
			continue
		}
		end, n := i, int64(0)
		for ; end < len(recs) && !p.edits[end].drop; end++ {
			n += recs[end].size
		}
		lr.reset(io.NewSectionReader(ra, off, n))
		for ; i < end; i++ {
			line, nl, err := lr.next()
			if errors.Is(err, io.EOF) {
				return ErrChanged
			}
			if err != nil {
				return err
			}
			if lineSize(line, nl) != recs[i].size {
				return ErrChanged
			}
			if err := p.write(w, i, line); err != nil {
				return err
			}
		}
		off += n
	}
	return nil
}

// sizeOf is the size of what ra reads, when it says.
func sizeOf(ra io.ReaderAt) (int64, bool) {
	switch v := ra.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, false
		}
		return st.Size(), true
	case interface{ Size() int64 }:
		return v.Size(), true
	}
	return 0, false
}

func lineSize(line []byte, nl bool) int64 {
	if nl {
		return int64(len(line)) + 1
	}
	return int64(len(line))
}

// write writes record i (line) as the plan says, with its newline.
func (p *Plan) write(w *bufio.Writer, i int, line []byte) error {
	e := &p.edits[i]
	if e.drop {
		return nil
	}
	var err error
	if e.changes() {
		err = p.writeEdited(w, line, e)
		if err != nil {
			err = fmt.Errorf("line %d: %w", p.sr.recs[i].line, err)
		}
	} else {
		_, err = w.Write(line)
	}
	if err == nil {
		err = w.WriteByte('\n')
	}
	return err
}

func (e *edit) changes() bool {
	return e.relink || e.relinkLogical || e.relinkLeaf || len(e.trimBlocks) > 0 || e.trimTUR
}

// writeEdited writes line with the plan's edits: the values to change are
// found by a raw walk and spliced (markers for trimmed tool output, the
// re-pointed uuids), so an 8 MiB line is neither decoded nor copied. A
// shape the walk does not follow (an escaped key, a value not where the
// plan says) takes the general path, sjson, which yields the same bytes
// for every line the splice accepts (TestSpliceMatchesSJSON).
func (p *Plan) writeEdited(w *bufio.Writer, line []byte, e *edit) error {
	if spans, ok := p.editSpans(line, e); ok {
		at := 0
		for _, sp := range spans {
			w.Write(line[at:sp.start])
			w.Write(sp.repl)
			at = sp.end
		}
		_, err := w.Write(line[at:])
		return err
	}
	out, err := p.sjsonEdit(line, e)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// sjsonEdit is the general path of writeEdited.
func (p *Plan) sjsonEdit(line []byte, e *edit) ([]byte, error) {
	out := append([]byte(nil), line...)
	var err error
	set := func(path string, raw []byte) {
		if err == nil {
			out, err = sjson.SetRawBytes(out, path, raw)
		}
	}
	if e.relink {
		set("parentUuid", p.sr.uuids.quoted(nil, e.parent))
	}
	if e.relinkLogical {
		set("logicalParentUuid", p.sr.uuids.quoted(nil, e.logical))
	}
	if e.relinkLeaf {
		set("leafUuid", p.sr.uuids.quoted(nil, e.leaf))
	}
	for _, b := range e.trimBlocks {
		path := "message.content." + strconv.Itoa(b) + ".content"
		n := len(gjsonRaw(out, path))
		set(path, []byte(strconv.Quote(Marker(int64(n)))))
	}
	if e.trimTUR {
		n := len(gjsonRaw(out, "toolUseResult"))
		set("toolUseResult", []byte(strconv.Quote(Marker(int64(n)))))
	}
	return out, err
}

// splice is a value's byte range in a line and what replaces it.
type splice struct {
	start, end int
	repl       []byte
}

// editSpans finds the values e changes in line, in order, with their
// replacements; false when one is not where the plan says or two overlap.
func (p *Plan) editSpans(line []byte, e *edit) ([]splice, bool) {
	s := transient(line)
	var spans []splice
	add := func(v string, repl []byte) {
		start := spanOf(s, v).start
		spans = append(spans, splice{start, start + len(v), repl})
	}
	marker := func(v string) []byte { return strconv.AppendQuote(nil, Marker(int64(len(v)))) }
	for _, f := range []struct {
		on  bool
		key string
		id  uid
	}{{e.relink, "parentUuid", e.parent}, {e.relinkLogical, "logicalParentUuid", e.logical}, {e.relinkLeaf, "leafUuid", e.leaf}} {
		if !f.on {
			continue
		}
		v, ok := firstKey(s, f.key)
		if !ok {
			return nil, false
		}
		add(v, p.sr.uuids.quoted(nil, f.id))
	}
	if e.trimTUR {
		v, ok := firstKey(s, "toolUseResult")
		if !ok {
			return nil, false
		}
		add(v, marker(v))
	}
	if len(e.trimBlocks) > 0 {
		blocks, ok := contentBlocks(s)
		if !ok {
			return nil, false
		}
		for _, b := range e.trimBlocks {
			if b < 0 || b >= len(blocks) {
				return nil, false
			}
			v, ok := firstKey(blocks[b], "content")
			if !ok {
				return nil, false
			}
			add(v, marker(v))
		}
	}
	slices.SortFunc(spans, func(a, b splice) int { return a.start - b.start })
	for k := 1; k < len(spans); k++ {
		if spans[k].start < spans[k-1].end {
			return nil, false // overlapping: not a shape the plan makes
		}
	}
	return spans, true
}

// contentBlocks returns the raw blocks of message.content.
func contentBlocks(s string) ([]string, bool) {
	msg, ok := firstKey(s, "message")
	if !ok {
		return nil, false
	}
	content, ok := firstKey(msg, "content")
	if !ok {
		return nil, false
	}
	var blocks []string
	if !jsonl.EachElem(content, func(v string) bool { blocks = append(blocks, v); return true }) {
		return nil, false
	}
	return blocks, true
}

// span is a value's byte range in a line.
type span struct{ start, end int }

// firstKey returns the raw value of the first key named key in the object
// s (gjson and sjson also take the first of duplicate keys).
func firstKey(s, key string) (string, bool) {
	var val string
	found := false
	escaped := false
	ok := jsonl.EachTop(s, func(k, v string) bool {
		if strings.IndexByte(k, '\\') >= 0 {
			// An escaped key may spell key: leave it to gjson.
			escaped = true
			return false
		}
		if k == key {
			val, found = v, true
			return false
		}
		return true
	})
	return val, ok && found && !escaped
}

// spanOf is the range of v, a substring of s, within s.
func spanOf(s, v string) span {
	start := int(uintptr(unsafe.Pointer(unsafe.StringData(v))) - uintptr(unsafe.Pointer(unsafe.StringData(s))))
	return span{start, start + len(v)}
}

func gjsonRaw(b []byte, path string) string { return gjson.GetBytes(b, path).Raw }

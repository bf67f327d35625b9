package trim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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
	recs   []rec
	edits  []edit
	Report *Report
}

// MakePlan reads a transcript once and decides, by opts, what each record
// becomes. Memory is a few hundred bytes per record plus the largest line.
func MakePlan(r io.Reader, opts Options) (*Plan, error) {
	sr, err := scan(r, opts.AllowUnknown)
	if err != nil {
		return nil, err
	}
	edits, rep, err := makePlan(sr.recs, opts)
	if err != nil {
		return nil, err
	}
	rep.BytesBefore = sr.bytes
	return &Plan{recs: sr.recs, edits: edits, Report: rep}, nil
}

// Apply is pass 2: it reads the same transcript again and writes the
// trimmed one to w, copying kept records byte for byte except for the
// fields the plan changes. It returns the bytes written.
func (p *Plan) Apply(r io.Reader, w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	_, err := p.apply(r, bw)
	if err == nil {
		err = bw.Flush()
	}
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

func (p *Plan) apply(r io.Reader, w *bufio.Writer) (int64, error) {
	lr := newLineReader(r)
	var written int64
	var buf []byte
	for i := 0; ; i++ {
		line, nl, err := lr.next()
		if errors.Is(err, io.EOF) {
			if i != len(p.recs) {
				return written, ErrChanged
			}
			return written, nil
		}
		if err != nil {
			return written, err
		}
		if i >= len(p.recs) {
			return written, ErrChanged
		}
		size := int64(len(line))
		if nl {
			size++
		}
		if size != p.recs[i].size {
			return written, ErrChanged
		}
		e := &p.edits[i]
		if e.drop {
			continue
		}
		out := line
		if e.changes() {
			out, err = applyEdit(line, e, buf[:0])
			if err != nil {
				return written, fmt.Errorf("line %d: %w", p.recs[i].line, err)
			}
			buf = out[:0]
		}
		n, err := w.Write(out)
		written += int64(n)
		if err == nil {
			err = w.WriteByte('\n')
			written++
		}
		if err != nil {
			return written, err
		}
	}
}

func (e *edit) changes() bool {
	return e.relink || e.relinkLogical || e.relinkLeaf || len(e.trimBlocks) > 0 || e.trimTUR
}

func applyEdit(line []byte, e *edit, buf []byte) ([]byte, error) {
	out, ok := spliceMarkers(line, e, buf)
	if !ok {
		// A shape the raw walk does not follow: the general path.
		out = append(buf, line...)
	}
	var err error
	set := func(path string, raw []byte) {
		if err == nil {
			out, err = sjson.SetRawBytes(out, path, raw)
		}
	}
	uuidRaw := func(u string) []byte {
		if u == "" {
			return []byte("null")
		}
		return []byte(strconv.Quote(u))
	}
	if e.relink {
		set("parentUuid", uuidRaw(e.parent))
	}
	if e.relinkLogical {
		set("logicalParentUuid", uuidRaw(e.logical))
	}
	if e.relinkLeaf {
		set("leafUuid", uuidRaw(e.leaf))
	}
	if ok {
		return out, err
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

// span is a value's byte range in a line.
type span struct{ start, end int }

// spliceMarkers appends line to buf with the trimmed values (tool_result
// contents, toolUseResult) replaced by their markers, found by a raw walk
// that jumps over strings instead of decoding them: gjson and sjson
// decoded and re-scanned each multi-megabyte value, which was most of the
// write pass. It reports false, having written nothing, when a value is
// not where the plan says (the caller then takes the gjson/sjson path,
// which produces the same bytes for every line this one accepts).
func spliceMarkers(line []byte, e *edit, buf []byte) ([]byte, bool) {
	if len(e.trimBlocks) == 0 && !e.trimTUR {
		return append(buf, line...), true
	}
	s := transient(line)
	n0 := len(buf)
	var spans []span
	if e.trimTUR {
		v, ok := firstKey(s, "toolUseResult")
		if !ok {
			return buf, false
		}
		spans = append(spans, spanOf(s, v))
	}
	if len(e.trimBlocks) > 0 {
		msg, ok := firstKey(s, "message")
		if !ok {
			return buf, false
		}
		content, ok := firstKey(msg, "content")
		if !ok {
			return buf, false
		}
		var blocks []string
		if !jsonl.EachElem(content, func(v string) bool { blocks = append(blocks, v); return true }) {
			return buf, false
		}
		for _, b := range e.trimBlocks {
			if b < 0 || b >= len(blocks) {
				return buf, false
			}
			v, ok := firstKey(blocks[b], "content")
			if !ok {
				return buf, false
			}
			spans = append(spans, spanOf(s, v))
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	at := 0
	for _, sp := range spans {
		if sp.start < at {
			return buf[:n0], false // overlapping: not a shape the plan makes
		}
		buf = append(buf, line[at:sp.start]...)
		buf = strconv.AppendQuote(buf, Marker(int64(sp.end-sp.start)))
		at = sp.end
	}
	return append(buf, line[at:]...), true
}

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

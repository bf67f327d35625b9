package trim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

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
	out := append(buf, line...)
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

func gjsonRaw(b []byte, path string) string { return gjson.GetBytes(b, path).Raw }

package filecache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
)

// lineRecorder is a Marked LineCounter that keeps the lines it is given.
type lineRecorder struct {
	marker []byte
	whole  int64
	lines  []string
	offs   []int64
}

func (r *lineRecorder) Start([]byte)                                  {}
func (r *lineRecorder) Marker() ([]byte, int)                         { return r.marker, len(r.marker) - 1 }
func (r *lineRecorder) Whole() int64                                  { return r.whole }
func (r *lineRecorder) End() ([]agent.UsageRecord, int, []byte, bool) { return nil, 0, nil, false }
func (r *lineRecorder) Line(b []byte, off int64) {
	r.lines = append(r.lines, string(b))
	r.offs = append(r.offs, off)
}

// A line longer than the read buffer is counted, read again whole, when
// it holds the marker (wherever it is, across reads too) and skipped when
// not; a last line without its newline waits.
func TestCountFromLongLines(t *testing.T) {
	marker := `"usage":{`
	long := func(n, at int) string { // n bytes, the marker at at (-1: none)
		b := bytes.Repeat([]byte("x"), n)
		if at >= 0 {
			copy(b[at:], marker)
		}
		return string(b)
	}
	var lines []string
	lines = append(lines, `{"a":1}`, `{"usage":{}}`, long(3*bufSize, -1), long(3*bufSize, 5))
	for _, at := range []int{bufSize - 9, bufSize - 8, bufSize - 4, bufSize - 1, bufSize, 2*bufSize - 12, 3*bufSize - len(marker)} {
		lines = append(lines, long(3*bufSize, at), `{"usage":{"b":2}}`)
	}
	lines = append(lines, long(bufSize, -1), long(bufSize+1, bufSize+1-len(marker)), long(bufSize-1, 0), "")
	for _, tail := range []string{"", long(2*bufSize, 7), long(2*bufSize, -1)} {
		content := strings.Join(lines, "\n") + "\n" + tail
		p := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		var want []string
		var wantOffs []int64
		off := int64(0)
		for _, l := range lines {
			if strings.Contains(l, marker) {
				want, wantOffs = append(want, l), append(wantOffs, off)
			}
			off += int64(len(l)) + 1
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		r := &lineRecorder{marker: []byte(marker)}
		e, err := countFrom(f, UsageEntry{}, r)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if e.Offset != off {
			t.Errorf("tail %d bytes: counted to %d, want %d (the last complete line's end)", len(tail), e.Offset, off)
		}
		if len(r.lines) != len(want) {
			t.Fatalf("tail %d bytes: %d lines counted, want %d", len(tail), len(r.lines), len(want))
		}
		for i := range want {
			if r.lines[i] != want[i] || r.offs[i] != wantOffs[i] {
				t.Errorf("line %d: got %d bytes at %d, want %d bytes at %d", i, len(r.lines[i]), r.offs[i], len(want[i]), wantOffs[i])
			}
		}
	}
}

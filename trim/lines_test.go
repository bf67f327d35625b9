package trim

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineReader: whatever the reads return, the lines come back whole,
// with or without their newline, the buffer grows for a line longer than
// it, moves a partial line to its front, and a failed read is reported
// after the lines before it.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*readChunk+17)
	mid := strings.Repeat("y", readChunk-5)
	inputs := []string{"", "\n", "a", "a\n", "a\nb", "a\r\n\nb\n", long + "\n" + mid + "\n" + mid + "\nz",
		strings.Repeat(mid+"\n", 5), strings.Repeat("short line\n", readChunk/8)}
	for k, in := range inputs {
		want := strings.SplitAfter(in, "\n")
		if want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		readers := []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)),
			iotest.HalfReader(strings.NewReader(in)), iotest.DataErrReader(strings.NewReader(in))}
		if len(in) > 1000 {
			readers = readers[2:] // a byte at a time is too slow for megabytes
		}
		for _, r := range readers {
			lr := newLineReader(r)
			for i, w := range want {
				line, nl, err := lr.next()
				if err != nil || string(line)+map[bool]string{true: "\n"}[nl] != w || lr.line != i+1 {
					t.Fatalf("input %d, %T, line %d: %q %v %v, want %.40q", k, r, i+1, line[:min(len(line), 40)], nl, err, w)
				}
			}
			if _, _, err := lr.next(); err != io.EOF {
				t.Fatalf("input %d, %T: after the last line: %v", k, r, err)
			}
			if buf := lr.take(); strings.Contains(in, long) && cap(buf) < len(long) {
				t.Errorf("input %d: buffer %d for a %d-byte line", k, cap(buf), len(long))
			}
		}
	}
	boom := errors.New("boom")
	lr := newLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	if line, _, err := lr.next(); err != nil || string(line) != "a" {
		t.Fatalf("first line: %q %v", line, err)
	}
	if line, nl, err := lr.next(); err != nil || string(line) != "b" || nl {
		t.Fatalf("partial line before the error: %q %v %v", line, nl, err)
	}
	if _, _, err := lr.next(); !errors.Is(err, boom) {
		t.Fatalf("error: %v", err)
	}
}

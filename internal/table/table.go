// Package table writes aligned text columns for terminals and pipes:
// widths measured in terminal cells (East Asian wide characters count
// two), cells truncated to fit with "…", and columns that stay aligned
// across several writes (for output that is followed, like log --follow).
package table

import (
	"io"

	"github.com/mattn/go-runewidth"
)

// gap is the space between columns.
const gap = "  "

// Table is a set of columns. Widths only grow: rows written later line up
// with earlier ones unless a cell is wider than anything before it.
type Table struct {
	Header []string
	// MinWidths, when set, reserve room for values not seen yet (a
	// followed log's later records).
	MinWidths []int
	// Paint, when set, styles a cell (colour) after its width was
	// measured; it must not change the visible text.
	Paint func(row []string, col int, text string) string

	widths     []int
	headerDone bool
}

// Width is the number of terminal cells s takes.
func Width(s string) int { return runewidth.StringWidth(s) }

// Truncate shortens s to at most w cells, ending in "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return runewidth.Truncate(s, w, "…")
}

// spaces pads cells without allocating for each.
const spaces = "                                                                "

func pad(b []byte, n int) []byte {
	for n > len(spaces) {
		b = append(b, spaces...)
		n -= len(spaces)
	}
	if n > 0 {
		b = append(b, spaces[:n]...)
	}
	return b
}

// Write prints the header (on the first write) and rows. The last column
// is not padded, so lines carry no trailing blanks.
func (t *Table) Write(w io.Writer, rows [][]string) error {
	all := rows
	if !t.headerDone && t.Header != nil {
		all = append([][]string{t.Header}, rows...)
	}
	cw := t.grow(all)
	// Written in chunks of about chunkSize: a table of 10,000 rows is
	// ~1.5 MB, which built whole was as much fresh memory again.
	b := make([]byte, 0, min(t.lineWidth()*len(all), chunkSize+t.lineWidth()))
	var err error
	k := 0
	for i, row := range all {
		header := i == 0 && !t.headerDone && t.Header != nil
		for c, cell := range row {
			text := cell
			if t.Paint != nil && !header {
				text = t.Paint(row, c, cell)
			}
			b = append(b, text...)
			if c < len(row)-1 {
				b = pad(b, t.widths[c]-int(cw[k]))
				b = append(b, gap...)
			}
			k++
		}
		b = append(b, '\n')
		if len(b) >= chunkSize && err == nil {
			_, err = w.Write(b)
			b = b[:0]
		}
	}
	t.headerDone = t.headerDone || t.Header != nil
	if len(b) > 0 && err == nil {
		_, err = w.Write(b)
	}
	return err
}

// chunkSize is how much of a table Write buffers before writing it.
const chunkSize = 64 << 10

// lineWidth estimates a line's bytes: the widths and gaps, plus some
// room for a multi-byte last column.
func (t *Table) lineWidth() int {
	n := 32
	for _, w := range t.widths {
		n += w + len(gap)
	}
	return n
}

// grow widens the columns to rows' cells and returns each cell's width,
// row after row (measured once: a listing of 10,000 sessions has 110,000
// cells).
func (t *Table) grow(rows [][]string) []int32 {
	for c, m := range t.MinWidths {
		t.widen(c, m)
	}
	n := 0
	for _, row := range rows {
		n += len(row)
	}
	cw := make([]int32, 0, n)
	for _, row := range rows {
		for c, cell := range row {
			w := Width(cell)
			t.widen(c, w)
			cw = append(cw, int32(w))
		}
	}
	return cw
}

func (t *Table) widen(c, w int) {
	for len(t.widths) <= c {
		t.widths = append(t.widths, 0)
	}
	t.widths[c] = max(t.widths[c], w)
}

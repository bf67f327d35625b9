// Package table writes aligned text columns for terminals and pipes:
// widths measured in terminal cells (East Asian wide characters count
// two), cells truncated to fit with "…", and columns that stay aligned
// across several writes (for output that is followed, like log --follow).
package table

import (
	"io"
	"strings"

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
func Width(s string) int {
	if printableASCII(s) {
		return len(s) // one cell a byte: runewidth's answer, without its rune loop
	}
	return runewidth.StringWidth(s)
}

// Truncate shortens s to at most w cells, ending in "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if len(s) <= w && printableASCII(s) {
		return s
	}
	return runewidth.Truncate(s, w, "…")
}

// printableASCII reports whether every byte of s is printable ASCII
// (space to tilde), each of which takes one cell. A listing of 10,000
// sessions measures ~100,000 cells, nearly all of them such.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// spaces pads cells without allocating for each.
const spaces = "                                                                "

func pad(b *strings.Builder, n int) {
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
}

// Write prints the header (on the first write) and rows. The last column
// is not padded, so lines carry no trailing blanks.
func (t *Table) Write(w io.Writer, rows [][]string) error {
	all := rows
	if !t.headerDone && t.Header != nil {
		all = append([][]string{t.Header}, rows...)
	}
	t.grow(all)
	var b strings.Builder
	b.Grow(t.lineWidth() * len(all))
	for i, row := range all {
		header := i == 0 && !t.headerDone && t.Header != nil
		for c, cell := range row {
			text := cell
			if t.Paint != nil && !header {
				text = t.Paint(row, c, cell)
			}
			b.WriteString(text)
			if c < len(row)-1 {
				pad(&b, t.widths[c]-Width(cell))
				b.WriteString(gap)
			}
		}
		b.WriteByte('\n')
	}
	t.headerDone = t.headerDone || t.Header != nil
	_, err := io.WriteString(w, b.String())
	return err
}

// lineWidth estimates a line's bytes: the widths and gaps, plus some
// room for a multi-byte last column.
func (t *Table) lineWidth() int {
	n := 32
	for _, w := range t.widths {
		n += w + len(gap)
	}
	return n
}

func (t *Table) grow(rows [][]string) {
	for c, m := range t.MinWidths {
		t.widen(c, m)
	}
	for _, row := range rows {
		for c, cell := range row {
			t.widen(c, Width(cell))
		}
	}
}

func (t *Table) widen(c, w int) {
	for len(t.widths) <= c {
		t.widths = append(t.widths, 0)
	}
	t.widths[c] = max(t.widths[c], w)
}

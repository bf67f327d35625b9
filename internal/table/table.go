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
func Width(s string) int { return runewidth.StringWidth(s) }

// Truncate shortens s to at most w cells, ending in "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return runewidth.Truncate(s, w, "…")
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
	for i, row := range all {
		header := i == 0 && !t.headerDone && t.Header != nil
		for c, cell := range row {
			text := cell
			if t.Paint != nil && !header {
				text = t.Paint(row, c, cell)
			}
			b.WriteString(text)
			if c < len(row)-1 {
				b.WriteString(strings.Repeat(" ", t.widths[c]-Width(cell)))
				b.WriteString(gap)
			}
		}
		b.WriteByte('\n')
	}
	t.headerDone = t.headerDone || t.Header != nil
	_, err := io.WriteString(w, b.String())
	return err
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

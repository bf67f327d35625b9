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
	if p, ok := asciiEllipsis(s); ok {
		return len(p) + ellipsisWidth()
	}
	return runewidth.StringWidth(s)
}

// asciiEllipsis returns p when s is p+"…" and p is printable ASCII: a
// title cut earlier (the catalog cuts long titles so). runewidth's first
// lookup of a rune above U+0300 builds its 2 MB table (~550 page faults
// of a listing whose cut titles are otherwise ASCII); its answers for
// such a string are p's bytes plus the ellipsis's width.
func asciiEllipsis(s string) (string, bool) {
	p, ok := strings.CutSuffix(s, "…")
	return p, ok && printableASCII(p)
}

// Truncate shortens s to at most w cells, ending in "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if printableASCII(s) {
		if len(s) <= w {
			return s
		}
		// runewidth's answer for ASCII, one cell a byte, without asking
		// it the width of "…": its first lookup above U+0300 builds a
		// 2 MB table (~550 page faults of a listing whose titles are all
		// ASCII).
		return s[:max(w-ellipsisWidth(), 0)] + "…"
	}
	if p, ok := asciiEllipsis(s); ok {
		// runewidth's answer, as above: s itself when it fits, else p
		// cut as an ASCII string is.
		if len(p)+ellipsisWidth() <= w {
			return s
		}
		return p[:max(w-ellipsisWidth(), 0)] + "…"
	}
	return runewidth.Truncate(s, w, "…")
}

// ellipsisWidth is runewidth's width of "…" (U+2026): East Asian
// ambiguous, so two cells when runewidth takes the locale as East Asian.
func ellipsisWidth() int {
	if runewidth.DefaultCondition.EastAsianWidth {
		return 2
	}
	return 1
}

// printableASCII reports whether every byte of s is printable ASCII
// (space to tilde), each of which takes one cell. A listing of 10,000
// sessions measures ~100,000 cells, nearly all of them such.
func printableASCII(s string) bool {
	// Eight bytes at a time (each cell is measured, a title cut and
	// measured again: this loop was the table's largest cost).
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if !printableWord(w) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// printableWord reports whether each byte of w is in ' '..'~': none has
// its high bit set, none is below 0x20 (subtracting 0x20 borrows into
// the high bit only for those) and none is 0x7f (xor makes it zero).
func printableWord(w uint64) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	below := (w - 0x20*ones) & ^w & highs
	del := w ^ 0x7f*ones
	isDel := (del - ones) & ^del & highs
	return w&highs == 0 && below == 0 && isDel == 0
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

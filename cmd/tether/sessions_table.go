package main

import (
	"bufio"
	"github.com/tether-dev/tether/agent"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
)

// tableStyle is how a table meets the terminal: Width 0 means not a
// terminal (piped), where output is plain and the same whatever the
// window, for scripts.
type tableStyle struct {
	Width int
	Color bool
}

// pipedTitleWidth caps titles when the output is not a terminal.
const pipedTitleWidth = 60

// minTitleWidth is what the title keeps however narrow the terminal.
const minTitleWidth = 12

// tableStyle reads the terminal: its width (COLUMNS wins, as for ls) and
// whether colour is wanted (a terminal, no NO_COLOR).
func (a *App) tableStyle() tableStyle {
	if !a.IO.StdoutTTY {
		return tableStyle{}
	}
	st := tableStyle{Color: a.IO.ColorOut(), Width: 80}
	if n, err := strconv.Atoi(a.Getenv("COLUMNS")); err == nil && n > 0 {
		st.Width = n
	} else if ws, err := unix.IoctlGetWinsize(int(os.Stdout.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		st.Width = int(ws.Col)
	}
	return st
}

// sessionHeader are the cells sessionRowInto fills, in its order: the
// default columns.
var sessionHeader = []string{"HARNESS", "ID", "DIR", "BRANCH", "HUMAN", "ACTIVE", "STATE", "TMUX", "CTX", "MSGS", "TITLE"}

// The columns that are not sessionHeader's cells (config.SessionColumns
// has them all), and the title.
const (
	summaryColumn = "SUMMARY"
	costColumn    = "COST"
	titleColumn   = "TITLE"
)

// dropOrder is which columns a narrow terminal gives up first, so the
// title keeps at least minTitleWidth cells (or, without a title, so the
// table fits).
var dropOrder = []string{"TMUX", "HUMAN", "MSGS", "HARNESS", "CTX", "BRANCH"}

// printSessionTable writes ss as a table of the columns cols (header
// names; nil: sessionHeader), in their order. On a terminal the title
// takes what the other columns leave (dropping the least useful ones on a
// narrow terminal); piped, every column stays and titles are cut at a
// fixed width. Ids are abbreviated among those of ab, or, when ab is nil,
// among ss's.
func printSessionTable(w io.Writer, ss []catalog.Session, now time.Time, style tableStyle, ab *identity.Abbreviator, cols []string) {
	if cols == nil {
		cols = sessionHeader
	}
	var ids []string
	if ab == nil {
		ids = catalog.ShortIDs(ss)
	} else {
		ids = make([]string, len(ss))
		for i := range ss {
			ids[i] = ab.Short(ss[i].ID)
		}
	}
	rows := sessionRows(ss, now, ids, cols)
	header := slices.Clone(cols)
	limit := pipedTitleWidth
	if style.Width > 0 {
		header, rows, limit = fitWidth(header, rows, style.Width)
	}
	if title := slices.Index(header, titleColumn); title >= 0 {
		for _, r := range rows {
			r[title] = table.Truncate(r[title], limit)
		}
	}
	tb := &table.Table{Header: header}
	if state := slices.Index(header, "STATE"); style.Color {
		tb.Paint = func(_ []string, c int, text string) string {
			if c == state {
				return paintState(text)
			}
			return text
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	tb.Write(bw, rows)
	bw.Flush()
}

// fitWidth drops the columns of dropOrder, in turn, until the table fits
// a terminal width cells wide with the title at least minTitleWidth, and
// returns the columns left and the width the title may take.
func fitWidth(header []string, rows [][]string, width int) ([]string, [][]string, int) {
	for _, name := range dropOrder {
		if fits(header, rows, width) {
			break
		}
		header, rows = dropColumn(header, rows, slices.Index(header, name))
	}
	return header, rows, max(minTitleWidth, width-fixedWidth(header, rows, slices.Index(header, titleColumn)))
}

// fits is whether the table is no wider than width, its title (when it
// has one) cut to minTitleWidth.
func fits(header []string, rows [][]string, width int) bool {
	title := slices.Index(header, titleColumn)
	if title < 0 {
		// The last column has no gap after it.
		return fixedWidth(header, rows, -1)-2 <= width
	}
	return width-fixedWidth(header, rows, title) >= minTitleWidth
}

// sourceSummary and sourceCost are the cells of a row that are not in
// sessionHeader (see columnSources).
const (
	sourceSummary = -1 - iota
	sourceCost
)

// columnSources maps each of cols to the cell that fills it: its index in
// sessionHeader, or sourceSummary or sourceCost.
func columnSources(cols []string) []int {
	src := make([]int, len(cols))
	for j, c := range cols {
		switch c {
		case summaryColumn:
			src[j] = sourceSummary
		case costColumn:
			src[j] = sourceCost
		default:
			src[j] = slices.Index(sessionHeader, c)
		}
	}
	return src
}

// sessionRows formats ss's rows of the columns cols, in parallel: each
// row depends only on its session, and 10,000 rows took ~30 ms on one
// core. ids are the sessions' abbreviated ids.
func sessionRows(ss []catalog.Session, now time.Time, ids []string, cols []string) [][]string {
	rows := make([][]string, len(ss))
	src := columnSources(cols)
	// The default columns are sessionRowInto's cells: filled in place
	// (copied from base, 10,000 rows took ~12% longer).
	direct := slices.Equal(cols, sessionHeader)
	// One backing array for every row's cells: 10,000 rows are 10,000
	// fewer allocations.
	n := len(cols)
	cells := make([]string, len(ss)*n)
	fill := func(lo, hi int) {
		// A listing has a few hundred directories for thousands of
		// sessions: each DIR cell (escaped, collapsed and cut when not
		// plain ASCII) is made once.
		dirs := map[string]string{}
		var memo rowMemo
		base := make([]string, len(sessionHeader))
		for i := lo; i < hi; i++ {
			dir, ok := dirs[ss[i].Cwd]
			if !ok {
				dir = dirCell(ss[i].Cwd)
				dirs[ss[i].Cwd] = dir
			}
			r := cells[i*n : (i+1)*n : (i+1)*n]
			if direct {
				sessionRowInto(r, &ss[i], ids[i], dir, now, &memo)
			} else {
				sessionRowInto(base, &ss[i], ids[i], dir, now, &memo)
				pickCells(r, base, src, &ss[i])
			}
			rows[i] = r
		}
	}
	parts := min(runtime.GOMAXPROCS(0), 1+len(ss)/2000)
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fill(len(ss)*p/parts, len(ss)*(p+1)/parts)
		}()
	}
	fill(0, len(ss)/parts)
	wg.Wait()
	return rows
}

// pickCells fills r, s's row of the columns src maps (columnSources),
// from base, s's sessionRowInto cells.
func pickCells(r, base []string, src []int, s *catalog.Session) {
	for j, k := range src {
		switch k {
		case sourceSummary:
			r[j] = summaryCell(s.Summary)
		case sourceCost:
			r[j] = costCell(s.Spend)
		default:
			r[j] = base[k]
		}
	}
}

// fixedWidth is the cells every column but skip (the title; -1: none)
// takes, each with its gap.
func fixedWidth(header []string, rows [][]string, skip int) int {
	used := 0
	for c := range header {
		if c == skip {
			continue
		}
		wc := table.Width(header[c])
		for _, r := range rows {
			wc = max(wc, table.Width(r[c]))
		}
		used += wc + 2
	}
	return used
}

func dropColumn(header []string, rows [][]string, c int) ([]string, [][]string) {
	if c < 0 {
		return header, rows
	}
	for i, r := range rows {
		rows[i] = slices.Delete(r, c, c+1)
	}
	return slices.Delete(header, c, c+1), rows
}

// dirCell is the DIR cell of a session in cwd.
func dirCell(cwd string) string { return cell(filepath.Base(cwd), 24) }

// sessionRowInto fills r (len(sessionHeader) cells) with s's row; id is
// s's abbreviated id, dir its dirCell.
func sessionRowInto(r []string, s *catalog.Session, id, dir string, now time.Time, memo *rowMemo) {
	human := "-"
	if s.LastHumanActivity != nil {
		human = memo.relTime(now, *s.LastHumanActivity)
	}
	tmux := "-"
	if s.Runtime != nil && s.Runtime.Tmux != "" {
		tmux = s.Runtime.Tmux
	}
	ctxs := "-"
	if s.Context != nil {
		ctxs = memo.ctxCell(s.Context.Percent)
	}
	state := displayState(s)
	if s.Archived {
		state += ",archived"
	}
	msgs := unknownCount
	if s.Messages != nil {
		msgs = strconv.Itoa(*s.Messages)
	}
	// Cells come from transcripts and directory names: cell() escapes them.
	r[0], r[1], r[2], r[3] = s.Harness, cell(id, 40), dir, cell(s.GitBranch, 24)
	r[4], r[5], r[6], r[7] = human, memo.relTime(now, s.LastActivity), state, cell(tmux, 16)
	r[8], r[9], r[10] = ctxs, msgs, cell(s.Title, 1<<10)
}

// rowMemo keeps cells rows share: the last date (see dateMemo) and the
// CTX cells made (10,000 rows formatted a float and joined "%" to it,
// ~3 ms; percentages under 1000 are a few hundred distinct cells).
type rowMemo struct {
	dateMemo
	// pcts are the CTX cells by tenths of a percent under 10% (one
	// decimal), by whole percent at 10 + 100 on.
	pcts [1100]string
}

// ctxCell is gauge.Pct(p) + "%".
func (m *rowMemo) ctxCell(p float64) string {
	if !(p >= 0 && p < 999) || math.Signbit(p) { // NaN, -0 and large: as they are
		return gauge.Pct(p) + "%"
	}
	// gauge.Pct's choice by the value rounded to tenths: one decimal
	// under 10 where that is not whole, else the whole percent.
	k, tenths := 0, int(math.Round(p*10))
	if tenths < 100 && tenths%10 != 0 {
		k = tenths
	} else {
		k = 100 + int(math.Round(p))
	}
	if m.pcts[k] == "" {
		m.pcts[k] = gauge.Pct(p) + "%"
	}
	return m.pcts[k]
}

// dateMemo is relTime that keeps the last date it formatted: rows come
// newest first, so their old dates come in runs (a warm list of 10,000
// sessions formatted ~15,000 dates, two allocations and a calendar
// conversion each). The zero value is ready.
type dateMemo struct {
	lo, hi int64 // the Unix seconds [lo, hi) that are date's local day
	date   string
}

// relTime is the package's relTime(now, t).
func (m *dateMemo) relTime(now, t time.Time) string {
	if t.IsZero() || now.Sub(t) < relDateAfter {
		return relTime(now, t)
	}
	if sec := t.Unix(); sec >= m.lo && sec < m.hi {
		return m.date
	}
	local := t.Local()
	m.date = isoDate(local)
	m.lo, m.hi = localDay(local)
	return m.date
}

// localDay is the Unix seconds [lo, hi) of t's local calendar day, or an
// empty range where midnight is not plainly that (a zone that changed
// its offset at midnight that day).
func localDay(t time.Time) (lo, hi int64) {
	y, mo, d := t.Date()
	start := time.Date(y, mo, d, 0, 0, 0, 0, t.Location())
	end := time.Date(y, mo, d+1, 0, 0, 0, 0, t.Location())
	lo, hi = start.Unix(), end.Unix()
	sy, sm, sd := time.Unix(lo, 0).In(t.Location()).Date()
	ey, em, ed := time.Unix(hi-1, 0).In(t.Location()).Date()
	if lo >= hi || sy != y || sm != mo || sd != d || ey != y || em != mo || ed != d {
		return 0, 0
	}
	return lo, hi
}

// unknownCount is the MSGS cell of a session whose message count the list
// does not know (see countsHint).
const unknownCount = "-"

// paintState colours a state: running green, stale yellow.
func paintState(state string) string {
	switch {
	case strings.HasPrefix(state, catalog.StateRunning):
		return "\x1b[32m" + state + "\x1b[0m"
	case strings.HasPrefix(state, "stale"):
		return "\x1b[33m" + state + "\x1b[0m"
	}
	return state
}

// summaryCell is the summary's title, starred when the session changed
// after it was made.
func summaryCell(sum *catalog.Summary) string {
	if sum == nil {
		return "-"
	}
	t := cell(termsafe.Text(sum.Title), 60)
	if !sum.Current {
		t += " *"
	}
	return t
}

// costCell is a session's spend in the COST column ("-": none counted).
func costCell(sp *agent.Spend) string {
	if sp == nil {
		return "-"
	}
	return usd(sp.CostUSD)
}

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

var sessionHeader = []string{"HARNESS", "ID", "DIR", "BRANCH", "HUMAN", "ACTIVE", "STATE", "TMUX", "CTX", "MSGS", "TITLE"}

// dropOrder is which columns a narrow terminal gives up first, so the
// title keeps at least minTitleWidth cells.
var dropOrder = []string{"TMUX", "HUMAN", "MSGS", "HARNESS", "CTX", "BRANCH"}

// printSessionTable writes ss as a table. On a terminal the title takes
// what the other columns leave (dropping the least useful ones on a narrow
// terminal); piped, every column stays and titles are cut at a fixed width.
// Ids are abbreviated among those of ab, or, when ab is nil, among ss's.
func printSessionTable(w io.Writer, ss []catalog.Session, now time.Time, style tableStyle, ab *identity.Abbreviator, withSummary, withCost bool) {
	var ids []string
	if ab == nil {
		ids = catalog.ShortIDs(ss)
	} else {
		ids = make([]string, len(ss))
		for i := range ss {
			ids[i] = ab.Short(ss[i].ID)
		}
	}
	rows := sessionRows(ss, now, ids, withSummary)
	header := slices.Clone(sessionHeader)
	if withSummary {
		header = slices.Insert(header, len(header)-1, "SUMMARY")
	}
	if withCost {
		// COST (the session's spend, --cost) goes before the title.
		header = slices.Insert(header, len(header)-1, "COST")
		for i := range rows {
			rows[i] = slices.Insert(rows[i], len(rows[i])-1, costCell(ss[i].Spend))
		}
	}
	limit := pipedTitleWidth
	if style.Width > 0 {
		for _, name := range dropOrder {
			if style.Width-fixedWidth(header, rows) >= minTitleWidth {
				break
			}
			header, rows = dropColumn(header, rows, slices.Index(header, name))
		}
		limit = max(minTitleWidth, style.Width-fixedWidth(header, rows))
	}
	title := len(header) - 1
	for _, r := range rows {
		r[title] = table.Truncate(r[title], limit)
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

// sessionRows formats ss's rows, in parallel: each row depends only on
// its session, and 10,000 rows took ~30 ms on one core.
// ids are the sessions' abbreviated ids.
func sessionRows(ss []catalog.Session, now time.Time, ids []string, withSummary bool) [][]string {
	rows := make([][]string, len(ss))
	// One backing array for every row's cells: 10,000 rows are 10,000
	// fewer allocations (a row that gets a summary cell is copied by
	// Insert, its capacity being exact).
	n := len(sessionHeader)
	cells := make([]string, len(ss)*n)
	fill := func(lo, hi int) {
		// A listing has a few hundred directories for thousands of
		// sessions: each DIR cell (escaped, collapsed and cut when not
		// plain ASCII) is made once.
		dirs := map[string]string{}
		var memo rowMemo
		for i := lo; i < hi; i++ {
			r := cells[i*n : (i+1)*n : (i+1)*n]
			dir, ok := dirs[ss[i].Cwd]
			if !ok {
				dir = dirCell(ss[i].Cwd)
				dirs[ss[i].Cwd] = dir
			}
			sessionRowInto(r, &ss[i], ids[i], dir, now, &memo)
			if withSummary {
				// The summary goes before the title, which takes what is left.
				r = slices.Insert(r, len(r)-1, summaryCell(ss[i].Summary))
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

// fixedWidth is the cells every column but the last (the title) takes,
// with the gaps.
func fixedWidth(header []string, rows [][]string) int {
	used := 0
	for c := 0; c < len(header)-1; c++ {
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

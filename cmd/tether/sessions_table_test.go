package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones of TestDateMemoMatchesRelTime, on any machine

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/table"
)

func tableSessions(now time.Time) []catalog.Session {
	return []catalog.Session{
		{Harness: "claude-code", ID: "3f2a1b4c-0000-4000-8000-000000000001", Cwd: "/home/example/src/项目", GitBranch: "feature/登录-修复",
			LastActivity: now.Add(-time.Minute), State: catalog.StateRunning,
			Title: "修复登录页面在移动端上的布局错误并且补充单元测试以及端到端测试，确保所有浏览器都正常"},
		{Harness: "codex", ID: "0199aaaa-0000-7000-8000-000000000002", Cwd: "/home/example/src/api",
			LastActivity: now.Add(-3 * time.Hour), State: catalog.StateResumable, Title: "add the pagination endpoint and its tests, then update the README"},
	}
}

// TestSessionTableFitsTheTerminal: on a terminal the table is as wide as
// the terminal at most, East Asian wide characters counted as two cells,
// the title taking what is left; BRANCH is a column.
func TestSessionTableFitsTheTerminal(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, width := range []int{80, 120, 200} {
		var b bytes.Buffer
		printSessionTable(&b, tableSessions(now), now, tableStyle{Width: width}, nil, nil)
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if !strings.Contains(lines[0], "BRANCH") || len(lines) != 3 {
			t.Fatalf("width %d:\n%s", width, b.String())
		}
		for _, l := range lines {
			if w := table.Width(l); w > width {
				t.Errorf("width %d: a line takes %d cells:\n%s", width, w, l)
			}
		}
		// Columns line up in cells: the TITLE column starts at the same
		// cell on every line.
		col := table.Width(lines[0][:strings.Index(lines[0], "TITLE")])
		for _, l := range lines[1:] {
			r := []rune(l)
			pre := 0
			i := 0
			for ; i < len(r) && pre < col; i++ {
				pre += table.Width(string(r[i]))
			}
			if pre != col || r[i-1] != ' ' || r[i] == ' ' {
				t.Errorf("width %d: title not at cell %d:\n%s", width, col, b.String())
				break
			}
		}
		if width == 80 && !strings.Contains(b.String(), "…") {
			t.Errorf("width 80: long titles not cut:\n%s", b.String())
		}
	}
}

// TestSessionTableColourAndPipes: state is coloured on a terminal (running
// green) unless NO_COLOR; piped output has no escapes and does not depend
// on any terminal width.
func TestSessionTableColourAndPipes(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	printSessionTable(&b, tableSessions(now), now, tableStyle{Width: 200, Color: true}, nil, nil)
	if !strings.Contains(b.String(), "\x1b[32mrunning\x1b[0m") {
		t.Errorf("running not green:\n%q", b.String())
	}
	var piped1, piped2 bytes.Buffer
	printSessionTable(&piped1, tableSessions(now), now, tableStyle{}, nil, nil)
	printSessionTable(&piped2, tableSessions(now), now, tableStyle{}, nil, nil)
	if strings.Contains(piped1.String(), "\x1b") || piped1.String() != piped2.String() {
		t.Errorf("piped:\n%q", piped1.String())
	}
	if !strings.Contains(piped1.String(), "feature/登录-修复") {
		t.Errorf("piped output lost the branch:\n%s", piped1.String())
	}
}

func TestStateColours(t *testing.T) {
	for state, want := range map[string]string{"running": "\x1b[32m", "stale": "\x1b[33m", "resumable": ""} {
		if got := paintState(state); (want == "" && got != state) || (want != "" && !strings.HasPrefix(got, want)) {
			t.Errorf("%s: %q", state, got)
		}
	}
}

// The list writes context percentages with the same rule as the
// statusLine and the prompt.
func TestSessionTableContextRule(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ss := tableSessions(now)
	ss[0].Context = &catalog.ContextUsage{Percent: 62.5}
	ss[1].Context = &catalog.ContextUsage{Percent: 0.1136}
	var b bytes.Buffer
	printSessionTable(&b, ss, now, tableStyle{}, nil, nil)
	if !strings.Contains(b.String(), " 63% ") || !strings.Contains(b.String(), " 0.1% ") {
		t.Errorf("context column:\n%s", b.String())
	}
}

// isoDate is the date Format would print, for any year Format prints in
// four digits, and relTime uses it past 60 days.
func TestISODateMatchesFormat(t *testing.T) {
	for _, s := range []string{"0001-01-01T00:00:00Z", "0999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2026-02-09T10:00:00Z", "2026-11-30T23:59:59Z", "9999-12-31T23:59:59Z"} {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := isoDate(tm), tm.Format("2006-01-02"); got != want {
			t.Errorf("isoDate(%s) = %q, want %q", s, got, want)
		}
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.Local)
	old := now.AddDate(0, -3, -2)
	if got, want := relTime(now, old), old.Format("2006-01-02"); got != want {
		t.Errorf("relTime = %q, want %q", got, want)
	}
}

// Rows formatted in parallel are the rows formatted one by one, in order,
// of the default columns and of others in another order.
func TestSessionRowsParallelMatchSequential(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	titles := []string{"fix the parser", "修复登录错误", "tab\there", "  spaced  out  ", "x\x1b[31mred", ""}
	ss := make([]catalog.Session, 7001)
	for i := range ss {
		ss[i] = catalog.Session{Harness: catalog.ClaudeCode, ID: fmt.Sprintf("%08x-0000-4000-8000-%012d", i*7919, i),
			Cwd: fmt.Sprintf([]string{"/home/example/p%d", "/home/example/café  %d/", "/home/example/x\x1b%d"}[i/5%3], i/5%13), Title: titles[i%len(titles)], State: catalog.StateResumable,
			LastActivity: now.Add(-time.Duration(i) * 17 * time.Minute)}
		if i%3 == 0 {
			ss[i].Summary = &catalog.Summary{Title: titles[(i+1)%len(titles)], Current: i%2 == 0}
		}
		if i%4 == 0 {
			ss[i].Spend = &agent.Spend{CostUSD: float64(i) / 100}
		}
	}
	ab := catalog.Abbrev(ss)
	ids := catalog.ShortIDs(ss)
	for _, cols := range [][]string{sessionHeader, {"TITLE", "SUMMARY", "ID", "COST"}} {
		got := sessionRows(ss, now, ids, cols)
		for i, s := range ss {
			all := make([]string, len(sessionHeader))
			sessionRowInto(all, &s, ab.Short(s.ID), cell(filepath.Base(s.Cwd), 24), now, &rowMemo{})
			want := all
			if len(cols) != len(sessionHeader) {
				want = []string{all[10], summaryCell(s.Summary), all[1], costCell(s.Spend)}
			}
			if !slices.Equal(got[i], want) {
				t.Fatalf("row %d (columns %q): %q, want %q", i, cols, got[i], want)
			}
		}
	}
}

// listGC turns the rate-driven collector off only under its own memory
// limit, leaves what the user set alone, and restore puts back the rest.
func TestListGC(t *testing.T) {
	gcPercent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	memLimit := func() int64 { return debug.SetMemoryLimit(-1) }
	before, beforeLim := gcPercent(), memLimit()
	for _, c := range []struct {
		gogc, limit string
		percent     int
		lim         int64
	}{
		{"", "", -1, 48 << 20},
		{"", "1GiB", 400, beforeLim},
		{"200", "", before, 48 << 20},
		{"200", "1GiB", before, beforeLim},
	} {
		t.Setenv("GOGC", c.gogc)
		t.Setenv("GOMEMLIMIT", c.limit)
		restore := listGC()
		if p, l := gcPercent(), memLimit(); p != c.percent || l != c.lim {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: percent %d limit %d, want %d %d", c.gogc, c.limit, p, l, c.percent, c.lim)
		}
		restore()
		if p, l := gcPercent(), memLimit(); p != before || l != beforeLim {
			t.Errorf("not restored: %d %d", p, l)
		}
	}
}

// The memo gives relTime's answer for every time, in runs and out of
// order, in zones whose midnight moved (Sao Paulo's DST began at
// midnight; Apia skipped 2011-12-30 whole).
func TestDateMemoMatchesRelTime(t *testing.T) {
	saved := time.Local
	defer func() { time.Local = saved }()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, zone := range []string{"UTC", "America/Sao_Paulo", "Pacific/Apia", "Europe/Berlin", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		time.Local = loc
		var ts []time.Time
		for _, day := range []string{"2018-11-04", "2011-12-29", "2011-12-31", "2026-03-29", "2026-10-25"} {
			d, _ := time.ParseInLocation("2006-01-02", day, loc)
			for m := -90; m < 26*60; m += 7 {
				ts = append(ts, d.Add(time.Duration(m)*time.Minute-time.Nanosecond), d.Add(time.Duration(m)*time.Minute))
			}
		}
		for range 2000 {
			ts = append(ts, now.Add(-time.Duration(rng.Int64N(int64(5*365*24*time.Hour)))))
		}
		ts = append(ts, time.Time{}, now.Add(time.Hour), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
		var m dateMemo
		for pass := range 2 {
			for _, tm := range ts {
				if got, want := m.relTime(now, tm), relTime(now, tm); got != want {
					t.Fatalf("%s: relTime(%s) = %q, want %q", zone, tm, got, want)
				}
			}
			if pass == 0 {
				rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			}
		}
	}
}

// The CTX cells the memo keeps are gauge.Pct's, whatever order the
// percentages come in: at the one-decimal/whole boundary (9.95), at .5
// roundings, tiny, large and not finite.
func TestCtxCellMatchesPct(t *testing.T) {
	ps := []float64{0, math.Copysign(0, -1), 0.04, 0.05, 0.1136, 0.95, 1, 9.94, 9.95, 9.96, 10, 10.45, 10.5, 63.2, 99.5,
		998.4, 998.5, 998.6, 999, 1e9, -1, math.Inf(1), math.NaN()}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		ps = append(ps, rng.Float64()*120, float64(rng.IntN(12000))/100, float64(rng.IntN(2000))/20)
	}
	for range 2 {
		var m rowMemo
		for _, p := range ps {
			if got, want := m.ctxCell(p), gauge.Pct(p)+"%"; got != want {
				t.Fatalf("ctxCell(%v) = %q, want %q", p, got, want)
			}
		}
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	}
}

// Every column the config knows is one the table fills, by the same
// name: a column added to config.SessionColumns alone fails here.
func TestTableHasTheConfigsColumns(t *testing.T) {
	for _, c := range config.SessionColumns {
		if src := columnSources([]string{strings.ToUpper(c)})[0]; src < 0 && src != sourceSummary && src != sourceCost {
			t.Errorf("column %s: no cell fills it", c)
		}
	}
	def := config.DefaultColumns()
	for i := range def {
		def[i] = strings.ToUpper(def[i])
	}
	if !slices.Equal(def, sessionHeader) {
		t.Errorf("default columns %q, the table's %q", def, sessionHeader)
	}
}

// Columns other than the default ones, in their order: a narrow terminal
// drops from dropOrder only, the title keeps its minimum wherever it is;
// without a title nothing is cut, and columns go until the table fits.
func TestSessionTableChosenColumns(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ss := tableSessions(now)
	ss[0].Spend = &agent.Spend{CostUSD: 1.5}
	var b bytes.Buffer
	printSessionTable(&b, ss, now, tableStyle{Width: 40}, nil, []string{"TITLE", "ID", "HARNESS", "COST", "TMUX"})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"TITLE", "ID", "COST"}) {
		t.Errorf("header %q, want TITLE ID COST (TMUX and HARNESS dropped):\n%s", got, b.String())
	}
	for _, l := range lines {
		if w := table.Width(l); w > 40 {
			t.Errorf("a line takes %d cells:\n%s", w, b.String())
		}
	}
	if !strings.Contains(b.String(), "$1.50") || !strings.Contains(b.String(), "…") {
		t.Errorf("no cost or the title not cut:\n%s", b.String())
	}
	// No TITLE: the last column (DIR) is not cut as a title would be, and
	// the dropped columns are those that did not fit.
	ss[1].Cwd = "/home/example/src/a-long-directory-name"
	b.Reset()
	printSessionTable(&b, ss, now, tableStyle{Width: 40}, nil, []string{"ID", "TMUX", "MSGS", "DIR"})
	lines = strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"ID", "MSGS", "DIR"}) {
		t.Errorf("header %q, want ID MSGS DIR:\n%s", got, b.String())
	}
	if !strings.Contains(b.String(), dirCell(ss[1].Cwd)) {
		t.Errorf("DIR cut:\n%s", b.String())
	}
	for _, l := range lines {
		if w := table.Width(l); w > 40 {
			t.Errorf("a line takes %d cells:\n%s", w, b.String())
		}
	}
}

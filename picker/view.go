package picker

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/mattn/go-runewidth"

	"github.com/tether-dev/tether/catalog"
)

// styles are the picker's colours for a light or dark background. Under
// NO_COLOR the renderer drops the colours; bold, underline and reverse
// still mark matches and the selection.
type styles struct {
	base, dim, hl, sel, selHl, header, warn, ok, bad, mid lipgloss.Style
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	base := lipgloss.NewStyle()
	sel := base.Reverse(true)
	return styles{
		base:   base,
		dim:    base.Foreground(c("#6c6c6c", "#8a8a8a")),
		hl:     base.Bold(true).Underline(true).Foreground(c("#005fd7", "#5fd7ff")),
		sel:    sel,
		selHl:  sel.Bold(true).Underline(true),
		header: base.Bold(true),
		warn:   base.Foreground(c("#af5f00", "#ffaf00")),
		ok:     base.Foreground(c("#008700", "#5fd75f")),
		mid:    base.Foreground(c("#af8700", "#d7d75f")),
		bad:    base.Foreground(c("#d70000", "#ff5f5f")),
	}
}

// View draws the screen: header, query, rows (and preview), status, help.
func (m Model) View() tea.View {
	var b strings.Builder
	b.WriteString(fit(m.header(), m.width) + "\n")
	shown, total := m.Counts()
	b.WriteString(m.input.View() + "  " + m.styles.dim.Render(fmt.Sprintf("%d/%d", shown, total)) + "\n")
	body := m.body()
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	b.WriteString(fit(m.footer(), m.width))
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.WindowTitle = "tether pick"
	return v
}

func (m Model) header() string {
	scope := "all directories"
	if !m.scopeAll {
		scope = "sessions in " + tilde(clean(m.opts.Root), m.opts.Home) + " (ctrl+s: all)"
	} else if m.opts.Root != "" {
		scope += " (ctrl+s: " + tilde(clean(m.opts.Root), m.opts.Home) + ")"
	}
	h := m.harness
	if h == "" {
		h = "all"
	}
	s := m.styles.header.Render("tether pick") + " · " + scope + " · harness: " + h + " (tab)"
	if m.opts.Since > 0 {
		s += " · since " + m.opts.Since.String()
	}
	if m.refreshing {
		s += " · " + m.spin.View() + " refreshing"
	} else if m.refreshErr != "" {
		s += " · " + m.styles.warn.Render("refresh failed: "+clean(m.refreshErr))
	}
	return s
}

func (m Model) footer() string {
	if m.status != "" {
		return m.styles.warn.Render(clean(m.status))
	}
	// Enter, ? and esc first: a narrow terminal cuts the end of the line.
	parts := []string{keyResume.label + " resume", keyHelp.label + " keys", "esc quit"}
	for _, b := range bindings {
		if b.short && b.active(&m) && b != &keyResume && b != &keyHelp && b != &keyQuit {
			parts = append(parts, b.label+" "+shortDesc(b))
		}
	}
	return m.styles.dim.Render(strings.Join(parts, " · "))
}

func shortDesc(b *binding) string {
	switch b {
	case &keyResume:
		return "resume"
	case &keyTmux:
		return "tmux"
	case &keyAttach:
		return "attach"
	case &keyFork:
		return "fork"
	case &keyTrim:
		return "trim"
	case &keyPrint:
		return "print"
	case &keyScope:
		return "scope"
	case &keyHarness:
		return "harness"
	case &keyHelp:
		return "keys"
	case &keyQuit:
		return "quit"
	}
	return b.desc
}

// listHeight is how many rows fit: the screen less header, query and
// footer.
func (m Model) listHeight() int { return max(1, m.height-3) }

// body is the list (and the preview beside it), listHeight lines.
func (m Model) body() []string {
	h := m.listHeight()
	if m.help {
		return pad(m.helpLines(), h, m.width)
	}
	if m.trim != nil {
		return pad(m.trimLines(), h, m.width)
	}
	listW := m.width
	var prev []string
	if m.preview && m.width >= 60 {
		listW = m.width * 11 / 20
		if s := m.selected(); s != nil {
			prev = wrapLines(m.previewText(s), m.width-listW-3)
		}
	}
	lines := make([]string, 0, h)
	for i := m.offset; i < len(m.matches) && len(lines) < h; i++ {
		lines = append(lines, m.rowLine(m.matches[i], i == m.cursor, listW))
	}
	if len(m.matches) == 0 {
		lines = append(lines, m.styles.dim.Render(fit(m.emptyText(), listW)))
	}
	lines = pad(lines, h, listW)
	if listW == m.width {
		return lines
	}
	for i := range lines {
		p := ""
		if i < len(prev) {
			p = prev[i]
		}
		lines[i] += " " + m.styles.dim.Render("│") + " " + p
	}
	return lines
}

func (m Model) emptyText() string {
	switch {
	case len(m.sessions) == 0 && m.refreshing:
		return "loading sessions …"
	case len(m.sessions) == 0:
		return "no sessions found"
	case len(m.cand) == 0:
		return "no sessions in scope (ctrl+s widens, tab changes the harness)"
	}
	return "no session matches the query"
}

// column widths for a list of width w.
type cols struct{ harness, id, dir, age, state, gauge, branch, title int }

func layout(w int) cols {
	c := cols{harness: 6, id: 8, dir: 24, age: 4, state: 9, gauge: 4, branch: 16}
	if w < 110 {
		c.branch, c.dir = 0, 18
	}
	if w < 70 {
		c.dir, c.state = 12, 0
	}
	used := c.harness + c.id + c.dir + c.age + c.state + c.gauge + c.branch
	n := 7 // separators
	if c.branch == 0 {
		n--
	}
	if c.state == 0 {
		n--
	}
	c.title = max(8, w-used-n)
	return c
}

func (m Model) rowLine(mt match, selected bool, w int) string {
	r := &m.rows[mt.row]
	s := r.s
	c := layout(w)
	// With a query the hay is built (the filter used it): the matched
	// positions come from it.
	var h *hay
	var pos []int
	if strings.TrimSpace(m.lastQuery) != "" {
		h = &m.hays.get()[mt.row]
		pos = h.positions(m.lastQuery)
	}
	at := func(f int) []int {
		if h == nil {
			return nil
		}
		return h.fieldPositions(pos, f, len(r.id))
	}
	st := m.styles
	base, hl := st.base, st.hl
	if selected {
		base, hl = st.sel, st.selHl
	}
	harness := clean(s.Harness) // a harness no agent names
	if a := m.agentOf(s); a != nil {
		harness = a.Command()
	}
	parts := []string{
		base.Render(padRight(harness, c.harness)),
		cell(r.id, at(fID), c.id, false, base, hl),
		cell(rowDir(s, m.opts.Home), at(fDir), c.dir, true, base, hl),
		base.Render(padLeft(relTime(m.opts.Now(), s.LastActivity), c.age)),
	}
	if c.state > 0 {
		parts = append(parts, base.Render(padRight(stateText(s), c.state)))
	}
	parts = append(parts, m.gauge(s, c.gauge, selected))
	if c.branch > 0 {
		parts = append(parts, cell(rowBranch(s), at(fBranch), c.branch, false, base, hl))
	}
	parts = append(parts, cell(rowTitle(s), at(fTitle), c.title, false, base, hl))
	return strings.Join(parts, base.Render(" "))
}

// stateText is a row's state, as sessions list shows it: stale (the last
// resume failed and the transcript is unchanged since) over resumable.
func stateText(s *catalog.Session) string {
	switch {
	case s.State == catalog.StateRunning:
		return "running"
	case s.Stale != nil:
		return "stale"
	case s.Archived:
		return "archived"
	}
	return s.State
}

// previewState is the preview's state line before the full read arrives,
// worded as sessions show words it.
func previewState(s *catalog.Session) string {
	st := stateText(s)
	if s.Stale != nil && st == "stale" {
		st += fmt.Sprintf(" (%s, on %s)", s.Stale.Reason, s.Stale.At.Local().Format("2006-01-02 15:04"))
	}
	return st
}

// gauge draws the context in use as a bar of w cells in eighths, coloured
// by how close the session is to its window.
func (m Model) gauge(s *catalog.Session, w int, selected bool) string {
	if s.Context == nil {
		return m.styles.dim.Render(padRight("-", w))
	}
	pct := max(0, min(100, s.Context.Percent))
	eighths := int(pct/100*float64(w*8) + 0.5)
	blocks := []rune(" ▏▎▍▌▋▊▉█")
	var b strings.Builder
	for i := range w {
		n := max(0, min(8, eighths-i*8))
		b.WriteRune(blocks[n])
	}
	st := m.styles.ok
	switch {
	case pct >= 90:
		st = m.styles.bad
	case pct >= 60:
		st = m.styles.mid
	}
	if selected {
		st = st.Reverse(true)
	}
	return st.Render(b.String())
}

// cell draws text in exactly w columns, the matched bytes hl highlighted;
// too long text is cut with … on the right (or the left, for paths, whose
// end says most).
func cell(text string, hl []int, w int, left bool, base, hlStyle lipgloss.Style) string {
	type piece struct {
		r  rune
		hl bool
	}
	var ps []piece
	j := 0
	for i, r := range text {
		for j < len(hl) && hl[j] < i {
			j++
		}
		ps = append(ps, piece{r, j < len(hl) && hl[j] == i})
	}
	width := 0
	for _, p := range ps {
		width += runewidth.RuneWidth(p.r)
	}
	if width > w {
		ell := piece{'…', false}
		if left {
			for width > w-1 && len(ps) > 0 {
				width -= runewidth.RuneWidth(ps[0].r)
				ps = ps[1:]
			}
			ps = append([]piece{ell}, ps...)
		} else {
			for width > w-1 && len(ps) > 0 {
				width -= runewidth.RuneWidth(ps[len(ps)-1].r)
				ps = ps[:len(ps)-1]
			}
			ps = append(ps, ell)
		}
		width++
	}
	var out, run strings.Builder
	cur := false
	flush := func() {
		if run.Len() > 0 {
			st := base
			if cur {
				st = hlStyle
			}
			out.WriteString(st.Render(run.String()))
			run.Reset()
		}
	}
	for _, p := range ps {
		if p.hl != cur {
			flush()
			cur = p.hl
		}
		run.WriteRune(p.r)
	}
	cur = false
	run.WriteString(strings.Repeat(" ", max(0, w-width)))
	flush()
	return out.String()
}

// previewText is what the preview pane shows for s: the full read when it
// has arrived (what `tether sessions show` prints), else what the listing
// knows; then the exact command Enter runs.
func (m *Model) previewText(s *catalog.Session) string {
	var b strings.Builder
	if full, ok := m.previews[s.Key()]; ok {
		b.WriteString(full)
	} else {
		fmt.Fprintf(&b, "session:       %s\ntitle:         %s\ncwd:           %s\nstate:         %s\n",
			s.Key(), s.Title, s.Cwd, previewState(s))
		if s.Stale != nil && s.State != catalog.StateRunning {
			fix := s.Stale.Fix
			if fix == "" {
				fix = "none known: resuming it starts a fresh session"
			}
			fmt.Fprintf(&b, "fix:           %s\n", fix)
		}
		if s.Context != nil {
			b.WriteString("context:       " + s.Context.Text() + "\n")
		}
		if s.Messages != nil {
			fmt.Fprintf(&b, "messages:      %d\n", *s.Messages)
		}
		if m.opts.Show != nil {
			b.WriteString("(reading the transcript …)\n")
		}
	}
	b.WriteString("\nenter runs:\n  " + ResumeCommand(m.opts.Self, m.agentOf(s), *s, false).ShellCommand() + "\n")
	return b.String()
}

func (m Model) helpLines() []string {
	lines := []string{m.styles.header.Render("keys") + m.styles.dim.Render("  (any key closes)"), ""}
	for _, b := range bindings {
		lines = append(lines, fmt.Sprintf("  %-16s %s", b.label, b.desc))
	}
	lines = append(lines, "", "  typing filters (fuzzy) over title, prompts, directory, branch and id")
	return lines
}

func (m Model) trimLines() []string {
	t := m.trim
	lines := []string{m.styles.header.Render("trim --fit " + t.s.Key()), ""}
	lines = append(lines, wrapLines(t.report, m.width-2)...)
	lines = append(lines, "")
	switch {
	case t.ready:
		lines = append(lines, m.styles.warn.Render("apply this trim? y: yes, n: no"))
	case t.applied:
		lines = append(lines, m.styles.dim.Render("enter or esc: back to the list"))
	}
	return lines
}

// wrapLines cleans text and cuts it into lines of at most w columns.
func wrapLines(text string, w int) []string {
	if w < 4 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = clean(line)
		for runewidth.StringWidth(line) > w {
			cut := runewidth.Truncate(line, w, "")
			if cut == "" {
				break
			}
			out = append(out, cut)
			line = line[len(cut):]
		}
		out = append(out, line)
	}
	return out
}

// pad makes lines exactly h lines (blank lines of width w added; extra
// lines dropped).
func pad(lines []string, h, w int) []string {
	if len(lines) > h {
		return lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return lines
}

// fit cuts a styled line to w columns.
func fit(s string, w int) string {
	if lipgloss.Width(s) <= w {
		return s
	}
	return lipgloss.NewStyle().MaxWidth(w).Render(s)
}

func padRight(s string, w int) string {
	if n := runewidth.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return runewidth.Truncate(s, w, "")
}

func padLeft(s string, w int) string {
	if n := runewidth.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// relTime says how long ago t was: 45s, 12m, 3h, 5d, 8w, 2y.
func relTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	case d < 70*24*time.Hour:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	case d < 730*24*time.Hour:
		return strconv.Itoa(int(d.Hours()/24/7)) + "w"
	}
	return strconv.Itoa(int(d.Hours()/24/365)) + "y"
}

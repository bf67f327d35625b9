package picker

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/tether-dev/tether/catalog"
)

type (
	previewTickMsg struct{ seq int }
	previewMsg     struct {
		key, text string
	}
	trimReportMsg struct {
		key, text string
		err       error
	}
	trimDoneMsg struct {
		key, text string
		err       error
	}
)

// previewDelay lets the cursor move through rows without a full read of
// each transcript.
const previewDelay = 150 * time.Millisecond

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(10, m.width-16)) // room for the counts
		if !m.previewSet {
			m.preview = m.width >= 120
		}
		m.clampOffset()
		return m, m.schedulePreview()
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.styles = newStyles(m.dark)
		return m, nil
	case spinner.TickMsg:
		if !m.refreshing {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case refreshMsg:
		m.refreshing = false
		if msg.err != nil {
			m.refreshErr = msg.err.Error()
		}
		if msg.sessions != nil || msg.err == nil {
			m.applyListing(msg.sessions)
		}
		return m, m.schedulePreview()
	case previewTickMsg:
		if msg.seq != m.previewSeq {
			return m, nil
		}
		return m, m.loadPreview()
	case previewMsg:
		m.previews[msg.key] = msg.text
		return m, nil
	case trimReportMsg:
		if m.trim != nil && m.trim.s.Key() == msg.key {
			m.trim.report, m.trim.ready = msg.text, msg.err == nil
			if msg.err != nil {
				m.trim.report = "dry run failed: " + msg.err.Error() + "\n" + msg.text
			}
		}
		return m, nil
	case trimDoneMsg:
		if m.trim != nil && m.trim.s.Key() == msg.key {
			m.trim.report, m.trim.ready, m.trim.applied = msg.text, false, true
			if msg.err != nil {
				m.trim.report = "trim failed: " + msg.err.Error() + "\n" + msg.text
			}
		}
		delete(m.previews, msg.key)
		if m.opts.Refresh != nil && !m.refreshing {
			m.refreshing = true
			return m, tea.Batch(m.refreshCmd(), m.spin.Tick)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.PasteMsg:
		return m.edit(msg)
	}
	return m, nil
}

// settleDelay is how long after a refresh put another session under the
// cursor a key that ends the picker is held: it may have been pressed at
// the frame before (a person reacts in a quarter of a second or more).
const settleDelay = 500 * time.Millisecond

// applyListing replaces the sessions with a fresh listing. A session the
// user moved the cursor to stays selected, wherever the listing puts it;
// an unmoved cursor stays on the top row. Until the user sets the scope,
// it is this directory when the listing has sessions here (a first open,
// with no snapshot, starts with none). A change of the selected session
// is remembered, so that an Enter meant for the row seen before is not
// applied to another.
func (m *Model) applyListing(ss []catalog.Session) {
	before := m.selectedKey() // before the rows change under the cursor
	keep := sessionKey{}
	if m.moved {
		keep = before
	}
	m.setSessions(ss, nil)
	if !m.scopeChosen {
		m.scopeAll = !m.rootHasSessions()
	}
	m.rescopeKeeping(keep)
	if after := m.selectedKey(); before != (sessionKey{}) && after != before {
		m.changedAt = m.opts.Now()
	}
}

// settled reports whether a key that ends the picker with the selected
// session may act now; if not it says why, and the next such key acts.
func (m *Model) settled() bool {
	if m.changedAt.IsZero() {
		return true
	}
	recent := m.opts.Now().Sub(m.changedAt) < settleDelay
	m.changedAt = time.Time{}
	if recent {
		if s := m.selected(); s != nil {
			m.status = fmt.Sprintf("the list was refreshed: %s is selected now; press the key again for it", s.ShortID())
		}
		return false
	}
	return true
}

func (m Model) quit(k Kind) (tea.Model, tea.Cmd) {
	m.result.Kind = k
	if s := m.selected(); s != nil && k != Cancel {
		m.result.Session = *s
	}
	m.done = true
	return m, tea.Quit
}

func (m Model) key(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := msg.String()
	if k == "ctrl+c" {
		return m.quit(Cancel)
	}
	if m.trim != nil {
		return m.trimKey(k)
	}
	if m.help {
		m.help = false // any key closes the key list
		return m, nil
	}
	sel := m.selected()
	switch {
	case keyQuit.matches(k):
		return m.quit(Cancel)
	case keyResume.matches(k):
		if sel == nil || !m.settled() {
			return m, nil
		}
		if m.opts.PrintOnly {
			return m.quit(Print)
		}
		if sel.State == catalog.StateRunning {
			m.status = runningNote(&m, sel)
			return m, nil
		}
		return m.quit(Resume)
	case keyPrint.matches(k):
		if sel != nil && m.settled() {
			return m.quit(Print)
		}
	case keyTmux.matches(k), keyAttach.matches(k), keyFork.matches(k):
		return m.action(k)
	case keyTrim.matches(k):
		if keyTrim.active(&m) && m.opts.TrimReport != nil {
			m.trim = &trimState{s: *sel, report: "running the dry run …"}
			s, f := *sel, m.opts.TrimReport
			return m, func() tea.Msg {
				text, err := f(s)
				return trimReportMsg{s.Key(), text, err}
			}
		}
	case keyScope.matches(k):
		m.scopeAll = !m.scopeAll || m.opts.Root == ""
		m.scopeChosen = true
		m.rescope()
		return m, m.schedulePreview()
	case keyHarness.matches(k):
		// All, then each agent in turn.
		cycle := append([]string{""}, m.opts.Agents.Names()...)
		i := 0
		for j, h := range cycle {
			if h == m.harness {
				i = j
			}
		}
		m.harness = cycle[(i+1)%len(cycle)]
		m.rescope()
		return m, m.schedulePreview()
	case keyPreview.matches(k):
		m.preview, m.previewSet = !m.preview, true
		return m, m.schedulePreview()
	case keyHelp.matches(k):
		m.help = true
	case keyUp.matches(k):
		return m.move(-1)
	case keyDown.matches(k):
		return m.move(1)
	case keyPgUp.matches(k):
		return m.move(-m.listHeight())
	case keyPgDown.matches(k):
		return m.move(m.listHeight())
	default:
		return m.edit(msg)
	}
	return m, nil
}

// action handles the keys that end the picker with a session, when they
// apply to the selected one.
func (m Model) action(k string) (tea.Model, tea.Cmd) {
	for _, a := range []struct {
		b    *binding
		kind Kind
	}{{&keyTmux, TmuxWindow}, {&keyAttach, Attach}, {&keyFork, Fork}} {
		if a.b.matches(k) && a.b.active(&m) && m.settled() {
			return m.quit(a.kind)
		}
	}
	return m, nil
}

func (m Model) trimKey(k string) (tea.Model, tea.Cmd) {
	t := m.trim
	switch {
	case k == "y" && t.ready && m.opts.Trim != nil:
		t.ready = false
		t.report = "trimming …"
		s, f := t.s, m.opts.Trim
		return m, func() tea.Msg {
			text, err := f(s)
			return trimDoneMsg{s.Key(), text, err}
		}
	case k == "n" || k == "esc" || k == "q" || (t.applied && k == "enter"):
		m.trim = nil
	}
	return m, nil
}

// edit passes a key to the query input and re-filters when it changed.
func (m Model) edit(msg tea.Msg) (tea.Model, tea.Cmd) {
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != before {
		m.status = ""
		if len(m.input.Value()) < len(m.lastQuery) || m.input.Value()[:len(m.lastQuery)] != m.lastQuery {
			m.lastQuery = "" // not an extension: search every candidate
		}
		m.refilter()
		m.cursor, m.offset = 0, 0
		m.moved, m.changedAt = false, time.Time{} // on the best match, as drawn
		return m, tea.Batch(cmd, m.schedulePreview())
	}
	return m, cmd
}

func (m Model) move(d int) (tea.Model, tea.Cmd) {
	m.cursor = max(0, min(len(m.matches)-1, m.cursor+d))
	m.moved, m.changedAt = true, time.Time{} // the user sees what they chose
	m.clampOffset()
	return m, m.schedulePreview()
}

// clampOffset keeps the cursor inside the visible window of rows.
func (m *Model) clampOffset() {
	h := m.listHeight()
	m.cursor = max(0, min(m.cursor, len(m.matches)-1))
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = max(0, m.offset)
}

// schedulePreview asks for the selected session's full read once the
// cursor has rested for previewDelay.
func (m *Model) schedulePreview() tea.Cmd {
	s := m.selected()
	if !m.preview || s == nil || m.opts.Show == nil {
		return nil
	}
	if _, ok := m.previews[s.Key()]; ok {
		return nil
	}
	m.previewSeq++
	seq := m.previewSeq
	return tea.Tick(previewDelay, func(time.Time) tea.Msg { return previewTickMsg{seq} })
}

func (m *Model) loadPreview() tea.Cmd {
	s := m.selected()
	if s == nil || m.opts.Show == nil {
		return nil
	}
	sess, f := *s, m.opts.Show
	return func() tea.Msg {
		text, err := f(sess)
		if err != nil {
			text = "full read failed: " + err.Error()
		}
		return previewMsg{sess.Key(), text}
	}
}

// runningNote says why Enter does not resume s (it runs, or may) and
// what does: ctrl+a when Claude Code recorded the tmux pane it runs in,
// else a forced resume.
func runningNote(m *Model, s *catalog.Session) string {
	note := fmt.Sprintf("%s is running (pid %d)", s.ShortID(), pid(s))
	if s.Runtime != nil && s.Runtime.Status == catalog.StatusPossibly {
		note = fmt.Sprintf("%s may be running (Claude Code process %d is in its directory)", s.ShortID(), pid(s))
	}
	if keyAttach.active(m) {
		return note + ": ctrl+a goes to its tmux pane"
	}
	return note + ": tether sessions resume --force " + s.ShortID() + " resumes it anyway"
}

func pid(s *catalog.Session) int {
	if s.Runtime == nil {
		return 0
	}
	return s.Runtime.PID
}

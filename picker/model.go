package picker

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
)

// Options configure the picker. Functions that do I/O run in tea.Cmds, off
// the event loop; any of them may be nil.
type Options struct {
	// Sessions paint the first screen (the last listing, from the cache).
	Sessions []catalog.Session
	// Short are the sessions' short ids, catalog.ShortIDs(Sessions), when
	// the caller has them (snapshot.Load does); nil: computed.
	Short []string
	// Root is the identity root of the directory the picker was opened in
	// (or --cwd): the scope starts there when it has sessions.
	Root string
	// Harness starts the harness filter ("" for all).
	Harness string
	// Agents are the agents the sessions belong to: the harness filter
	// cycles over them, and each says what the picker may do with its
	// sessions (fork, trim).
	Agents agent.Registry
	// Since hides sessions idle longer than this (0: no limit).
	Since time.Duration
	Query string
	Now   func() time.Time
	Home  string
	// Self is tether's executable, the wrapper the resume command runs.
	Self string
	// InTmux is true when the picker runs inside tmux ($TMUX).
	InTmux bool
	// PrintOnly makes Enter print the command instead of running it.
	PrintOnly bool

	// Refresh lists the catalog afresh (in the background).
	Refresh func() ([]catalog.Session, error)
	// Show renders a full read of s, as `tether sessions show` prints it.
	Show func(s catalog.Session) (string, error)
	// TrimReport is the dry-run report of `tether trim --fit`; Trim applies
	// it. Both return the text to show.
	TrimReport func(s catalog.Session) (string, error)
	Trim       func(s catalog.Session) (string, error)
}

// Model is the picker's state.
type Model struct {
	opts     Options
	sessions []catalog.Session
	rows     []row
	hays     *haystacks

	scopeAll bool
	// scopeChosen: the user set the scope (ctrl+s), so a refresh no
	// longer decides it from where the sessions are.
	scopeChosen bool
	harness     string
	input       textinput.Model

	// cand is the rows in scope, newest first; matches what the query
	// kept. lastQuery/lastCand let a query that extends the previous one
	// search only the previous matches.
	cand      []int
	matches   []match
	lastQuery string

	cursor, offset int
	width, height  int
	// moved: the user moved the cursor to a session, which a refresh
	// then keeps selected; until then the cursor stays on the top row
	// (the newest session, or the best match).
	moved bool
	// changedAt is when a refresh last put another session under the
	// cursor: an Enter that soon after was aimed at the frame before.
	changedAt time.Time

	preview, previewSet bool
	previews            map[string]string
	previewSeq          int

	refreshing bool
	refreshErr string
	spin       spinner.Model

	help   bool
	dark   bool
	status string
	trim   *trimState
	result Result
	done   bool
	styles styles
}

// trimState is the trim confirmation dialog.
type trimState struct {
	s       catalog.Session
	report  string
	ready   bool // the dry run finished: y applies
	applied bool
}

// New builds the model. Call Init (tea does) to start the refresh.
func New(opts Options) Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "type to filter: title, prompts, directory, branch, id"
	in.SetValue(opts.Query)
	in.Focus()
	m := Model{
		opts: opts, harness: opts.Harness, input: in, width: 80, height: 24,
		previews: map[string]string{}, dark: true,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.styles = newStyles(m.dark)
	// Init cannot change the model: the refresh it starts is marked here.
	m.refreshing = opts.Refresh != nil
	m.setSessions(opts.Sessions, opts.Short)
	m.scopeAll = !m.rootHasSessions()
	m.rescope()
	return m
}

// rootHasSessions reports whether the picker's directory has sessions:
// the scope starts there when it has.
func (m *Model) rootHasSessions() bool {
	if m.opts.Root == "" {
		return false
	}
	for i := range m.sessions {
		if m.sessions[i].IdentityRoot == m.opts.Root {
			return true
		}
	}
	return false
}

// WaitReady returns once the rows' search text, which New builds in the
// background, is built.
func (m Model) WaitReady() { m.hays.get() }

// Result is how the picker ended (valid after the program quit).
func (m Model) Result() Result { return m.result }

// Init starts the background refresh, the spinner and the background
// colour query.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.opts.Refresh != nil {
		cmds = append(cmds, m.refreshCmd(), m.spin.Tick)
	}
	return tea.Batch(cmds...)
}

type refreshMsg struct {
	sessions []catalog.Session
	err      error
}

// refreshCmd lists the catalog in the background; the caller sets
// m.refreshing.
func (m *Model) refreshCmd() tea.Cmd {
	f := m.opts.Refresh
	return func() tea.Msg {
		ss, err := f()
		return refreshMsg{ss, err}
	}
}

// setSessions replaces the sessions and the rows, and starts building
// their haystacks in the background: only a query needs them.
func (m *Model) setSessions(ss []catalog.Session, short []string) {
	m.sessions = ss
	m.rows = newRows(ss, short)
	m.hays = newHaystacks(m.rows, m.opts.Home)
	go m.hays.get()
}

// selected is the session under the cursor, or nil.
func (m *Model) selected() *catalog.Session {
	if m.cursor < 0 || m.cursor >= len(m.matches) {
		return nil
	}
	return m.rows[m.matches[m.cursor].row].s
}

// inScope reports whether s passes the scope, harness and --since filters.
func (m *Model) inScope(s *catalog.Session, since time.Time) bool {
	switch {
	case !m.scopeAll && s.IdentityRoot != m.opts.Root:
	case m.harness != "" && s.Harness != m.harness:
	case m.opts.Since > 0 && s.LastActivity.Before(since):
	default:
		return true
	}
	return false
}

// sessionKey names a session (catalog.Session.Key's parts, compared
// without building the string for every row).
type sessionKey struct{ harness, id string }

// selectedKey names the session under the cursor (zero when none).
func (m *Model) selectedKey() sessionKey {
	if s := m.selected(); s != nil {
		return sessionKey{s.Harness, s.ID}
	}
	return sessionKey{}
}

// rescope recomputes the candidates after the scope or harness changed,
// then re-filters, keeping the selected session selected.
func (m *Model) rescope() { m.rescopeKeeping(m.selectedKey()) }

// rescopeKeeping is rescope with the session to keep selected named
// (after a refresh, the rows under the old cursor are gone).
func (m *Model) rescopeKeeping(keep sessionKey) {
	since := m.opts.Now().Add(-m.opts.Since)
	m.cand = m.cand[:0]
	for i := range m.rows {
		if m.inScope(m.rows[i].s, since) {
			m.cand = append(m.cand, i)
		}
	}
	m.lastQuery = ""
	m.refilter()
	m.cursor, m.offset = 0, 0
	if keep != (sessionKey{}) {
		for i, mt := range m.matches {
			if s := m.rows[mt.row].s; s.ID == keep.id && s.Harness == keep.harness {
				m.cursor = i
				break
			}
		}
	}
	m.clampOffset()
}

// refilter applies the query. When it extends the previous query, only
// the previous matches can still match (a fuzzy match of "abc" contains
// one of "ab"), so only they are searched.
func (m *Model) refilter() {
	q := m.input.Value()
	cand := m.cand
	if m.lastQuery != "" && len(q) > len(m.lastQuery) && q[:len(m.lastQuery)] == m.lastQuery {
		cand = make([]int, len(m.matches))
		for i, mt := range m.matches {
			cand[i] = mt.row
		}
		slices.Sort(cand) // rows are newest first
	}
	m.matches = filter(m.hays, cand, q)
	m.lastQuery = q
}

// Counts are the rows shown and the rows in scope.
func (m Model) Counts() (shown, inScope int) { return len(m.matches), len(m.cand) }

// Selected is the session under the cursor (false when none).
func (m Model) Selected() (catalog.Session, bool) {
	if s := m.selected(); s != nil {
		return *s, true
	}
	return catalog.Session{}, false
}

// ScopeAll reports whether every directory is shown.
func (m Model) ScopeAll() bool { return m.scopeAll }

// HarnessFilter is the harness shown ("" for all).
func (m Model) HarnessFilter() string { return m.harness }

// PreviewText is the preview of the selected session as drawn.
func (m Model) PreviewText() string {
	s := m.selected()
	if s == nil {
		return ""
	}
	return m.previewText(s)
}

package picker

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/catalog"
)

var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func sess(h, id, cwd, title string, age time.Duration) catalog.Session {
	argv := []string{"claude", "--resume", id}
	if h == catalog.Codex {
		argv = []string{"codex", "resume", id}
	}
	return catalog.Session{Harness: h, ID: id, Cwd: cwd, IdentityRoot: cwd, Title: title, State: catalog.StateResumable,
		LastActivity: now.Add(-age), Resume: catalog.ResumeSpec{Argv: argv, Dir: cwd}}
}

func fixture() []catalog.Session {
	a := sess(catalog.ClaudeCode, "aaaa1111-0000-4000-8000-000000000001", "/home/example/proj", "fix the flaky login test", time.Minute)
	a.GitBranch = "main"
	b := sess(catalog.Codex, "bbbb2222-0000-4000-8000-000000000002", "/home/example/proj", "write release notes", time.Hour)
	c := sess(catalog.ClaudeCode, "cccc3333-0000-4000-8000-000000000003", "/home/example/other", "refactor the parser", 2*time.Hour)
	c.FirstPrompt = "please refactor the lexer and parser into packages"
	c.GitBranch = "parser-split"
	d := sess(catalog.Codex, "dddd4444-0000-4000-8000-000000000004", "/home/example/other", "benchmark \x1b[31mred\x1b[0m \u202eevil", 3*time.Hour)
	return []catalog.Session{a, b, c, d}
}

// testAgents are the agents of both binaries (cmd/internal/hot's registry).
var testAgents = agent.Registry{claude.New(""), codex.New("")}

func newModel(t *testing.T, opts Options) Model {
	t.Helper()
	if opts.Sessions == nil {
		opts.Sessions = fixture()
	}
	opts.Now = func() time.Time { return now }
	opts.Home, opts.Self = "/home/example", "/opt/tether/bin/tether"
	if opts.Agents == nil {
		opts.Agents = testAgents
	}
	m := New(opts)
	return send(m, tea.WindowSizeMsg{Width: 100, Height: 24})
}

func send(m Model, msgs ...tea.Msg) Model {
	for _, msg := range msgs {
		nm, _ := m.Update(msg)
		m = nm.(Model)
	}
	return m
}

func typeText(m Model, s string) Model {
	for _, r := range s {
		m = send(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

func press(m Model, code rune, mod tea.KeyMod) Model {
	return send(m, tea.KeyPressMsg{Code: code, Mod: mod})
}

func ids(m Model) string {
	var out []string
	for _, mt := range m.matches {
		out = append(out, m.rows[mt.row].s.ID[:4])
	}
	return strings.Join(out, ",")
}

func TestScopeStartsAtRootAndWidens(t *testing.T) {
	m := newModel(t, Options{Root: "/home/example/other"})
	if m.ScopeAll() || ids(m) != "cccc,dddd" {
		t.Fatalf("scope all=%v rows %s, want this directory's cccc,dddd", m.ScopeAll(), ids(m))
	}
	if v := m.View().Content; !strings.Contains(v, "sessions in ~/other") {
		t.Errorf("header does not name the scope:\n%s", v)
	}
	m = press(m, 's', tea.ModCtrl)
	if !m.ScopeAll() || ids(m) != "aaaa,bbbb,cccc,dddd" {
		t.Errorf("after ctrl+s: all=%v rows %s", m.ScopeAll(), ids(m))
	}
	// A directory without sessions starts with every directory.
	m = newModel(t, Options{Root: "/home/example/none"})
	if !m.ScopeAll() || ids(m) != "aaaa,bbbb,cccc,dddd" {
		t.Errorf("root without sessions: all=%v rows %s", m.ScopeAll(), ids(m))
	}
}

func TestHarnessCycle(t *testing.T) {
	m := newModel(t, Options{})
	want := []string{"aaaa,cccc", "bbbb,dddd", "aaaa,bbbb,cccc,dddd"}
	for i, w := range want {
		m = press(m, tea.KeyTab, 0)
		if ids(m) != w {
			t.Errorf("tab %d: rows %s, want %s (harness %q)", i+1, ids(m), w, m.HarnessFilter())
		}
	}
	m = newModel(t, Options{Harness: catalog.Codex})
	if ids(m) != "bbbb,dddd" {
		t.Errorf("--harness codex: rows %s", ids(m))
	}
}

func TestFilterFieldsAndNarrowing(t *testing.T) {
	cases := map[string]string{
		"flaky":        "aaaa",      // title
		"lexer":        "cccc",      // first prompt
		"parser-split": "cccc",      // branch
		"~/other":      "cccc,dddd", // directory
		"bbbb2222":     "bbbb",      // id
		"zzzz":         "",          // nothing
	}
	for q, want := range cases {
		m := typeText(newModel(t, Options{}), q)
		if ids(m) != want {
			t.Errorf("query %q: rows %s, want %s", q, ids(m), want)
		}
	}
	// Backspace widens again.
	m := typeText(newModel(t, Options{}), "flakyx")
	if ids(m) != "" {
		t.Fatalf("flakyx: %s", ids(m))
	}
	m = press(m, tea.KeyBackspace, 0)
	if ids(m) != "aaaa" {
		t.Errorf("after backspace: %s", ids(m))
	}
	// --query and --since pre-set the filter.
	m = newModel(t, Options{Query: "release"})
	if !strings.HasPrefix(ids(m), "bbbb") {
		t.Errorf("--query release: %s", ids(m))
	}
	m = newModel(t, Options{Since: 90 * time.Minute})
	if ids(m) != "aaaa,bbbb" {
		t.Errorf("--since 90m: %s", ids(m))
	}
}

func TestMatchesAreHighlightedAndControlCharsNeverDrawn(t *testing.T) {
	m := typeText(newModel(t, Options{}), "bench")
	v := m.View().Content
	if strings.Contains(v, "\x1b[31m") || strings.ContainsRune(v, '\u202e') {
		t.Errorf("raw control characters from a title reached the screen: %q", v)
	}
	if !strings.Contains(v, "red") {
		t.Errorf("title text missing: %q", v)
	}
	r := m.rows[m.matches[0].row]
	h := m.hays.get()[m.matches[0].row]
	if got := h.fieldPositions(h.positions("bench"), fTitle, len(r.id)); fmt.Sprint(got) != "[0 1 2 3 4]" {
		t.Errorf("title highlight positions %v", got)
	}
}

func TestPreviewContent(t *testing.T) {
	m := newModel(t, Options{Show: func(s catalog.Session) (string, error) {
		return "session: " + s.Key() + "\ncontext curve: ▁▂▃\nrecent prompts:\n  > hi\x07\n", nil
	}})
	m = send(m, tea.WindowSizeMsg{Width: 160, Height: 30})
	p := m.PreviewText()
	if !strings.Contains(p, "reading the transcript") {
		t.Errorf("preview before the full read: %q", p)
	}
	m = send(m, previewTickMsg{m.previewSeq})
	_, cmd := m.Update(previewTickMsg{m.previewSeq})
	m = send(m, cmd())
	p = m.PreviewText()
	for _, want := range []string{"session: claude-code:aaaa1111", "context curve: ▁▂▃", "> hi",
		"cd /home/example/proj && /opt/tether/bin/tether run claude --resume aaaa1111-0000-4000-8000-000000000001"} {
		if !strings.Contains(p, want) {
			t.Errorf("preview lacks %q:\n%s", want, p)
		}
	}
	if v := m.View().Content; strings.ContainsRune(v, '\a') || !strings.Contains(v, "context curve") {
		t.Errorf("preview pane drawn wrong: %q", v)
	}
	// Narrow terminals start without the preview; ctrl+v shows it.
	n := newModel(t, Options{})
	n = send(n, tea.WindowSizeMsg{Width: 80, Height: 24})
	if n.preview {
		t.Error("preview on at 80 columns")
	}
	if n = press(n, 'v', tea.ModCtrl); !n.preview {
		t.Error("ctrl+v did not show the preview")
	}
}

func TestActions(t *testing.T) {
	self := "/opt/tether/bin/tether"
	cases := []struct {
		name  string
		opts  Options
		query string
		key   tea.KeyPressMsg
		kind  Kind
		cmd   string
	}{
		{"enter resumes claude through the wrapper", Options{}, "flaky", tea.KeyPressMsg{Code: tea.KeyEnter}, Resume,
			"cd /home/example/proj && /opt/tether/bin/tether run claude --resume aaaa1111-0000-4000-8000-000000000001"},
		{"enter resumes codex through the wrapper", Options{}, "release", tea.KeyPressMsg{Code: tea.KeyEnter}, Resume,
			"cd /home/example/proj && /opt/tether/bin/tether run codex resume bbbb2222-0000-4000-8000-000000000002"},
		{"--print makes enter print", Options{PrintOnly: true}, "parser", tea.KeyPressMsg{Code: tea.KeyEnter}, Print,
			"cd /home/example/other && /opt/tether/bin/tether run claude --resume cccc3333-0000-4000-8000-000000000003"},
		{"ctrl+y prints", Options{}, "release", tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl}, Print,
			"cd /home/example/proj && /opt/tether/bin/tether run codex resume bbbb2222-0000-4000-8000-000000000002"},
		{"ctrl+f forks claude", Options{}, "flaky", tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}, Fork,
			"cd /home/example/proj && /opt/tether/bin/tether run claude --resume aaaa1111-0000-4000-8000-000000000001 --fork-session"},
		{"ctrl+f forks codex with codex fork", Options{}, "release", tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}, Fork,
			"cd /home/example/proj && /opt/tether/bin/tether run codex fork bbbb2222-0000-4000-8000-000000000002"},
		{"ctrl+t opens a tmux window inside tmux", Options{InTmux: true}, "flaky", tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}, TmuxWindow,
			"cd /home/example/proj && /opt/tether/bin/tether run claude --resume aaaa1111-0000-4000-8000-000000000001"},
		{"esc cancels", Options{}, "", tea.KeyPressMsg{Code: tea.KeyEscape}, Cancel, ""},
		{"ctrl+c cancels", Options{}, "flaky", tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, Cancel, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := typeText(newModel(t, c.opts), c.query)
			nm, cmd := m.Update(c.key)
			m = nm.(Model)
			if cmd == nil || !m.done {
				t.Fatalf("the picker did not end")
			}
			r := m.Result()
			if r.Kind != c.kind {
				t.Fatalf("kind %v, want %v", r.Kind, c.kind)
			}
			if c.cmd == "" {
				return
			}
			got := ResumeCommand(self, testAgents.Get(r.Session.Harness), r.Session, r.Kind == Fork).ShellCommand()
			if got != c.cmd {
				t.Errorf("command\n got %s\nwant %s", got, c.cmd)
			}
		})
	}
}

func TestKeysThatDoNotApplyDoNothing(t *testing.T) {
	// Trim is Claude Code only; ctrl+t needs tmux; ctrl+a a running pane.
	m := typeText(newModel(t, Options{}), "release")
	for _, k := range []rune{'t', 'a', 'x'} {
		nm, _ := m.Update(tea.KeyPressMsg{Code: k, Mod: tea.ModCtrl})
		if nm.(Model).done || nm.(Model).trim != nil {
			t.Errorf("ctrl+%c acted on a codex session outside tmux", k)
		}
	}
	if v := m.View().Content; strings.Contains(v, "ctrl+x trim") || strings.Contains(v, "ctrl+t tmux") {
		t.Errorf("trim or tmux shown for a codex row outside tmux:\n%s", v)
	}
	// A running session is not resumed over itself.
	ss := fixture()
	ss[0].State = catalog.StateRunning
	ss[0].Runtime = &catalog.Runtime{PID: 42, Tmux: "work", TmuxTarget: "work:@1.%3"}
	m = newModel(t, Options{Sessions: ss})
	nm, _ := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if nm.(Model).done || !strings.Contains(nm.(Model).status, "is running (pid 42): ctrl+a goes to its tmux pane") {
		t.Errorf("enter on a running session: done=%v status %q", nm.(Model).done, nm.(Model).status)
	}
	nm, _ = m.Update(tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl})
	if r := nm.(Model).Result(); r.Kind != Attach || tmuxTarget(&r.Session) != "work:@1.%3" {
		t.Errorf("ctrl+a: %v %q", r.Kind, tmuxTarget(&r.Session))
	}
	// Without a pane on record ctrl+a is not offered; one that may be
	// running (a Claude Code 2.0 process in its directory) says so.
	ss[0].Runtime = &catalog.Runtime{PID: 42, Status: catalog.StatusPossibly}
	m = newModel(t, Options{Sessions: ss})
	nm, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if st := nm.(Model).status; nm.(Model).done || strings.Contains(st, "ctrl+a") || !strings.Contains(st, "may be running") || !strings.Contains(st, "--force") {
		t.Errorf("enter on a possibly running session: done=%v status %q", nm.(Model).done, st)
	}
	args := TmuxAttachArgs("work:@1.%3", true)
	if fmt.Sprint(args[2]) != "[switch-client -t work:@1.%3]" {
		t.Errorf("attach args %v", args)
	}
}

func TestTrimShowsDryRunAndAsks(t *testing.T) {
	var applied []string
	m := newModel(t, Options{
		TrimReport: func(s catalog.Session) (string, error) { return "would drop 40% (dry run)", nil },
		Trim:       func(s catalog.Session) (string, error) { applied = append(applied, s.ID); return "trimmed", nil },
	})
	m = typeText(m, "flaky")
	nm, cmd := m.Update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	m = send(nm.(Model), cmd())
	if v := m.View().Content; !strings.Contains(v, "would drop 40%") || !strings.Contains(v, "apply this trim?") {
		t.Fatalf("no dry-run report and question:\n%s", v)
	}
	m = send(m, tea.KeyPressMsg{Code: 'n', Text: "n"})
	if m.trim != nil || len(applied) != 0 {
		t.Fatalf("n did not cancel: %v", applied)
	}
	nm, cmd = m.Update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	m = send(nm.(Model), cmd())
	nm, cmd = m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	m = send(nm.(Model), cmd())
	if len(applied) != 1 || applied[0][:4] != "aaaa" || !strings.Contains(m.View().Content, "trimmed") {
		t.Errorf("y did not trim the selected session: %v", applied)
	}
}

func TestRefreshUpdatesRowsInPlace(t *testing.T) {
	fresh := append(fixture(), sess(catalog.Codex, "eeee5555-0000-4000-8000-000000000005", "/home/example/proj", "new thread", 0))
	m := newModel(t, Options{Sessions: []catalog.Session{}, Refresh: func() ([]catalog.Session, error) { return fresh, nil }})
	m.Init()
	if !strings.Contains(m.View().Content, "refreshing") {
		t.Errorf("no spinner while refreshing:\n%s", m.View().Content)
	}
	m = typeText(m, "thread")
	m = send(m, refreshMsg{sessions: fresh})
	if !strings.HasPrefix(ids(m), "eeee,") || strings.Contains(m.View().Content, "refreshing") {
		t.Errorf("after refresh rows %s:\n%s", ids(m), m.View().Content)
	}
}

func TestViewFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 10}, {200, 50}} {
		m := send(newModel(t, Options{}), tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := lipglossWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, l)
			}
		}
	}
}

func TestBackgroundPicksTheStyles(t *testing.T) {
	m := newModel(t, Options{})
	dark := m.styles.hl.Render("x")
	m = send(m, tea.BackgroundColorMsg{Color: color.White})
	if m.dark || m.styles.hl.Render("x") == dark {
		t.Errorf("a light background kept the dark styles")
	}
	m = send(m, tea.BackgroundColorMsg{Color: color.Black})
	if !m.dark || m.styles.hl.Render("x") != dark {
		t.Errorf("a dark background did not give the dark styles")
	}
}

// The preview shows the listing's message count until the full read
// arrives, when the listing knows it.
func TestPreviewMessageCount(t *testing.T) {
	ss := fixture()
	n := 42
	ss[0].Messages = &n
	m := newModel(t, Options{Sessions: ss})
	m = send(m, tea.WindowSizeMsg{Width: 160, Height: 30})
	if p := m.PreviewText(); !strings.Contains(p, "messages:      42\n") {
		t.Errorf("preview lacks the message count:\n%s", p)
	}
}

// A refresh keeps the session under the cursor selected, also when the
// fresh listing is shorter or in another order than the snapshot.
func TestRefreshKeepsTheSelectedSession(t *testing.T) {
	old := fixture()
	m := newModel(t, Options{Sessions: old, Refresh: func() ([]catalog.Session, error) { return nil, nil }})
	m = press(m, tea.KeyDown, 0)
	m = press(m, tea.KeyDown, 0)
	m = press(m, tea.KeyDown, 0)
	if s, _ := m.Selected(); s.ID[:4] != "dddd" {
		t.Fatalf("selected %s, want dddd", s.ID)
	}
	// dddd is now the newest of two sessions.
	d, a := old[3], old[0]
	d.LastActivity = now
	m = send(m, refreshMsg{sessions: []catalog.Session{d, a}})
	if s, ok := m.Selected(); !ok || s.ID[:4] != "dddd" {
		t.Errorf("after refresh selected %q, want dddd (rows %s)", s.ID, ids(m))
	}
	// Selected session gone: the cursor goes to the top.
	m = send(m, refreshMsg{sessions: []catalog.Session{a}})
	if s, ok := m.Selected(); !ok || s.ID[:4] != "aaaa" {
		t.Errorf("after refresh without it selected %q, want aaaa", s.ID)
	}
}

// A session whose last resume failed is shown stale, in its row and in
// the preview (with the fix), as sessions list and show say; never as
// resumable.
func TestStaleSessionShownStale(t *testing.T) {
	ss := fixture()
	ss[0].Stale = &catalog.Stale{Reason: "prompt too long", At: time.Date(2026, 11, 29, 9, 30, 0, 0, time.Local), Fix: "tether trim --fit 60% " + ss[0].ID}
	m := send(newModel(t, Options{Sessions: ss, Show: func(catalog.Session) (string, error) { return "", nil }}), tea.WindowSizeMsg{Width: 160, Height: 30})
	var row string
	for _, l := range strings.Split(m.View().Content, "\n") {
		if strings.Contains(l, "aaaa1111") {
			row, _, _ = strings.Cut(l, "│") // the list, not the preview
			break
		}
	}
	if !strings.Contains(row, "stale") || strings.Contains(row, "resumable") {
		t.Errorf("stale session's row: %q", row)
	}
	p := m.PreviewText()
	for _, want := range []string{"state:         stale (prompt too long, on 2026-11-29 09:30)\n", "fix:           tether trim --fit 60% " + ss[0].ID} {
		if !strings.Contains(p, want) {
			t.Errorf("preview lacks %q:\n%s", want, p)
		}
	}
	// Running beats stale: the mark is about the last resume.
	ss[0].State = catalog.StateRunning
	m = newModel(t, Options{Sessions: ss})
	if p := m.PreviewText(); !strings.Contains(p, "state:         running\n") || strings.Contains(p, "fix:") {
		t.Errorf("running stale session's preview:\n%s", p)
	}
}

// clockModel is a model at 120x30 whose clock the test moves.
func clockModel(t *testing.T, opts Options, clock *time.Time) Model {
	t.Helper()
	opts.Now = func() time.Time { return *clock }
	opts.Home, opts.Self = "/home/example", "/opt/tether/bin/tether"
	return send(New(opts), tea.WindowSizeMsg{Width: 120, Height: 30})
}

func selectedID(m Model) string {
	s, _ := m.Selected()
	if len(s.ID) < 4 {
		return ""
	}
	return s.ID[:4]
}

// The background listing adds a newer session on top of the first paint
// (the snapshot): until the user moves the cursor it stays on the top
// row, so Enter right after opening resumes the newest session drawn
// there, not the one that was newest in the snapshot. An Enter that
// follows the refresh too closely to have been aimed at the new frame is
// held once, and says so.
func TestRefreshAddingNewerSessionsKeepsEnterOnTheRowSeen(t *testing.T) {
	clock := now
	old := fixture()
	newer := sess(catalog.ClaudeCode, "ffff6666-0000-4000-8000-000000000006", "/home/example/proj", "the newest one", 0)
	fresh := append([]catalog.Session{newer}, old...)
	opts := Options{Sessions: old, Root: "/home/example/proj", Refresh: func() ([]catalog.Session, error) { return fresh, nil }}

	m := clockModel(t, opts, &clock)
	if selectedID(m) != "aaaa" {
		t.Fatalf("first paint selects %s, want aaaa", selectedID(m))
	}
	m = send(m, refreshMsg{sessions: fresh})
	if selectedID(m) != "ffff" || m.cursor != 0 {
		t.Fatalf("after the refresh the cursor is on %s (row %d), want the new top row ffff; rows %s", selectedID(m), m.cursor, ids(m))
	}
	if top := strings.Split(m.View().Content, "\n")[2]; !strings.Contains(top, "ffff6666") || !strings.Contains(top, "\x1b[7m") {
		t.Errorf("the top row drawn is not the selected ffff: %q", top)
	}
	// Enter 100 ms after the refresh: held, with a word; again: resumes.
	clock = clock.Add(100 * time.Millisecond)
	m = press(m, tea.KeyEnter, 0)
	if m.done || !strings.Contains(m.status, "refreshed") {
		t.Fatalf("an Enter right after the refresh acted: done=%v status %q", m.done, m.status)
	}
	m = press(m, tea.KeyEnter, 0)
	if r := m.Result(); !m.done || r.Kind != Resume || r.Session.ID != newer.ID {
		t.Errorf("the second Enter: done=%v %v %s, want resume ffff", m.done, r.Kind, r.Session.ID)
	}

	// Enter once the new frame has been seen acts at once.
	clock = now
	m = send(clockModel(t, opts, &clock), refreshMsg{sessions: fresh})
	clock = clock.Add(2 * time.Second)
	m = press(m, tea.KeyEnter, 0)
	if r := m.Result(); !m.done || r.Session.ID != newer.ID {
		t.Errorf("Enter 2 s after the refresh: done=%v %s, want ffff", m.done, r.Session.ID)
	}

	// Enter before the refresh arrived resumes the row it was pressed on.
	clock = now
	m = press(clockModel(t, opts, &clock), tea.KeyEnter, 0)
	if r := m.Result(); !m.done || r.Session.ID != old[0].ID {
		t.Errorf("Enter on the first paint: %s, want aaaa", r.Session.ID)
	}

	// A session the user moved to stays selected (by id), wherever the
	// listing puts it, and Enter acts on it at once.
	clock = now
	m = press(clockModel(t, opts, &clock), tea.KeyDown, 0)
	m = send(m, refreshMsg{sessions: fresh})
	if selectedID(m) != "bbbb" {
		t.Fatalf("moved to bbbb, after the refresh on %s", selectedID(m))
	}
	m = press(m, tea.KeyEnter, 0)
	if r := m.Result(); !m.done || r.Session.ID != old[1].ID {
		t.Errorf("Enter on the session moved to: done=%v %s, want bbbb", m.done, r.Session.ID)
	}
}

// A first open (no snapshot: nothing to paint) in a directory with
// sessions is scoped to that directory once the listing arrives; a scope
// the user chose in the meantime is kept.
func TestFirstOpenScopesToTheDirectory(t *testing.T) {
	clock := now
	fresh := fixture()
	opts := Options{Sessions: []catalog.Session{}, Root: "/home/example/other", Refresh: func() ([]catalog.Session, error) { return fresh, nil }}
	m := send(clockModel(t, opts, &clock), refreshMsg{sessions: fresh})
	if m.ScopeAll() || ids(m) != "cccc,dddd" {
		t.Errorf("first open: all=%v rows %s, want this directory's cccc,dddd", m.ScopeAll(), ids(m))
	}
	// ctrl+s twice: this directory, then every directory, chosen.
	m = press(press(clockModel(t, opts, &clock), 's', tea.ModCtrl), 's', tea.ModCtrl)
	m = send(m, refreshMsg{sessions: fresh})
	if !m.ScopeAll() || ids(m) != "aaaa,bbbb,cccc,dddd" {
		t.Errorf("scope chosen before the listing: all=%v rows %s", m.ScopeAll(), ids(m))
	}
	// A directory the listing has no session of shows every directory.
	opts.Root = "/home/example/none"
	if m := send(clockModel(t, opts, &clock), refreshMsg{sessions: fresh}); !m.ScopeAll() {
		t.Errorf("a directory without sessions is scoped")
	}
}

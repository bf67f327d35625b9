package picker

import "github.com/tether-dev/tether/catalog"

// binding is one key of the picker, for the help line, the ? overlay and
// docs/picker.md's key table.
type binding struct {
	keys  []string // as tea.KeyPressMsg.String() spells them
	label string   // as shown
	desc  string
	short bool // on the help line
	// when, if set, says whether the key applies to the selected session.
	when func(m *Model, s *catalog.Session) bool
}

var (
	keyResume  = binding{keys: []string{"enter"}, label: "enter", desc: "resume in its own directory, through tether's wrapper", short: true}
	keyTmux    = binding{keys: []string{"ctrl+t"}, label: "ctrl+t", desc: "resume in a new tmux window (when the picker runs inside tmux)", short: true, when: func(m *Model, s *catalog.Session) bool { return m.opts.InTmux }}
	keyAttach  = binding{keys: []string{"ctrl+a"}, label: "ctrl+a", desc: "go to the tmux pane where it is running (running sessions Claude Code saw in tmux)", short: true, when: func(_ *Model, s *catalog.Session) bool { return tmuxTarget(s) != "" }}
	keyFork    = binding{keys: []string{"ctrl+f"}, label: "ctrl+f", desc: "fork: start a new session branched from it (claude --fork-session, codex fork)", short: true, when: func(m *Model, s *catalog.Session) bool { return canFork(m.agentOf(s)) }}
	keyTrim    = binding{keys: []string{"ctrl+x"}, label: "ctrl+x", desc: "trim --fit (shows the dry run, asks first; Claude Code)", short: true, when: func(m *Model, s *catalog.Session) bool { return canTrim(m.agentOf(s)) }}
	keyPrint   = binding{keys: []string{"ctrl+y"}, label: "ctrl+y", desc: "print the resume command and exit", short: true}
	keyScope   = binding{keys: []string{"ctrl+s"}, label: "ctrl+s", desc: "scope: this directory / all directories", short: true}
	keyHarness = binding{keys: []string{"tab"}, label: "tab", desc: "harness: all, then each agent", short: true}
	keyPreview = binding{keys: []string{"ctrl+v"}, label: "ctrl+v", desc: "show / hide the preview"}
	keyUp      = binding{keys: []string{"up", "ctrl+p", "ctrl+k"}, label: "↑ ctrl+p ctrl+k", desc: "previous session"}
	keyDown    = binding{keys: []string{"down", "ctrl+n", "ctrl+j"}, label: "↓ ctrl+n ctrl+j", desc: "next session"}
	keyPgUp    = binding{keys: []string{"pgup"}, label: "pgup", desc: "page up"}
	keyPgDown  = binding{keys: []string{"pgdown"}, label: "pgdn", desc: "page down"}
	keyHelp    = binding{keys: []string{"?"}, label: "?", desc: "show every key", short: true}
	keyQuit    = binding{keys: []string{"esc", "ctrl+c"}, label: "esc ctrl+c", desc: "quit, exit status 130 (esc also closes the key list and the trim dialog)", short: true}
)

// bindings in help order.
var bindings = []*binding{
	&keyResume, &keyTmux, &keyAttach, &keyFork, &keyTrim, &keyPrint,
	&keyScope, &keyHarness, &keyPreview, &keyUp, &keyDown, &keyPgUp, &keyPgDown, &keyHelp, &keyQuit,
}

func (b *binding) matches(k string) bool {
	for _, x := range b.keys {
		if x == k {
			return true
		}
	}
	return false
}

// active reports whether b applies now.
func (b *binding) active(m *Model) bool {
	if b.when == nil {
		return true
	}
	s := m.selected()
	return s != nil && b.when(m, s)
}

// KeyTable is the key table as Markdown rows, for docs/picker.md.
func KeyTable() string {
	out := "| key | action |\n|---|---|\n"
	for _, b := range bindings {
		out += "| `" + b.label + "` | " + b.desc + " |\n"
	}
	return out
}

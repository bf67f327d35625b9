package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/tether-dev/tether/agent"
)

// HookTimeout is the timeout (seconds) written into each hook entry: the
// agent kills the hook after it. tether's own budget is well under it.
const HookTimeout = 5

// Owner recognises the commands tether itself wrote into one settings
// file, exactly: a user's compound command ("tether hook; echo mine"), a
// hand-written "tether hook" or another binary's entry is never tether's,
// so install never rewrites it and uninstall never removes it.
type Owner struct {
	// Recorded are the commands tether recorded writing into this file
	// (state.HooksRecord).
	Recorded []string
	// Current are the commands this tether writes (hook, statusLine).
	Current []string
	// Events are the events tether ever installs (the agents' HookEvents
	// All): an entry under any other event (a PostToolUse hook the user
	// added) is never tether's.
	Events []string
}

// InstallableEvents are the events tether ever installs for any of agents
// (Owner.Events), in order, each once.
func InstallableEvents(agents agent.Registry) []string {
	var out []string
	for _, a := range agents.HookInstallers() {
		for _, ev := range a.HookEvents(func() string { return "" }).All {
			if !slices.Contains(out, ev) {
				out = append(out, ev)
			}
		}
	}
	return out
}

// Owns reports whether command is one tether wrote: exactly a recorded
// command or the one this tether writes. sub ("hook", "statusline") is
// kept for callers' clarity; the commands differ by it anyway. A
// "tether hook" of another binary is the user's unless tether recorded
// writing it (after a move of the binary, the record still names the old
// path, so install updates it and doctor reports it).
func (o Owner) Owns(command, sub string) bool {
	if command == "" {
		return false
	}
	return slices.Contains(o.Current, command) || slices.Contains(o.Recorded, command)
}

// Program is the program a hook command runs (unquoted).
func Program(command string) string {
	if w := shellWords(command); len(w) > 0 {
		return w[0]
	}
	return ""
}

// shellWords splits a command line the way sh would for the simple cases
// tether writes (plain words, single or double quotes).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// Entry is one of tether's hooks found in a settings file.
type Entry struct {
	Event   string
	Group   int
	Handler int
	Command string
	Timeout int64
}

// ParseError is a settings file that is not valid JSON, with the line of
// the problem.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// checkSettings refuses anything tether does not recognise: invalid JSON,
// a non-object, or a "hooks" value that is not an object of arrays.
func checkSettings(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		off := int64(len(data))
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if errors.As(err, &se) {
			off = se.Offset
		} else if errors.As(err, &te) {
			off = te.Offset
		}
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		return &ParseError{Line: 1 + bytes.Count(data[:min(off, int64(len(data)))], []byte("\n")), Msg: msg}
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New("not a JSON object")
	}
	if err := checkDuplicateKeys(data); err != nil {
		return err
	}
	h := gjson.GetBytes(data, "hooks")
	if !h.Exists() {
		return nil
	}
	if !h.IsObject() {
		return errors.New(`"hooks" is not an object`)
	}
	var bad error
	h.ForEach(func(k, groups gjson.Result) bool {
		if !groups.IsArray() {
			bad = fmt.Errorf(`"hooks.%s" is not an array`, k.Str)
			return false
		}
		for i, g := range groups.Array() {
			if !g.IsObject() || (g.Get("hooks").Exists() && !g.Get("hooks").IsArray()) {
				bad = fmt.Errorf(`"hooks.%s[%d]" is not a {"matcher", "hooks": [...]} group`, k.Str, i)
				return false
			}
		}
		return true
	})
	return bad
}

// Installed lists tether's hook entries in a settings file, as owner
// recognises them.
func Installed(data []byte, owner Owner) ([]Entry, error) {
	if err := checkSettings(data); err != nil {
		return nil, err
	}
	var out []Entry
	gjson.GetBytes(data, "hooks").ForEach(func(ev, groups gjson.Result) bool {
		for gi, g := range groups.Array() {
			for hi, h := range g.Get("hooks").Array() {
				if c := h.Get("command").String(); slices.Contains(owner.Events, ev.Str) && owner.Owns(c, "hook") {
					out = append(out, Entry{Event: ev.Str, Group: gi, Handler: hi, Command: c, Timeout: h.Get("timeout").Int()})
				}
			}
		}
		return true
	})
	return out, nil
}

// hookGroup and hookHandler fix the key order of what tether writes.
type hookGroup struct {
	Matcher *string       `json:"matcher,omitempty"`
	Hooks   []hookHandler `json:"hooks"`
}

type hookHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int64  `json:"timeout,omitempty"`
}

type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// rawJSON encodes v compactly without HTML escaping (a command may hold
// "&&" or "<").
func rawJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Plan describes a settings edit.
type Plan struct {
	Added, Updated, Removed []string // event names
	StatusLine              string   // "", "set", "updated", "removed", "restored", "kept-user"
	// Replaced is the user's statusLine (raw JSON) that a forced install
	// replaced, for the caller to keep so uninstall can restore it.
	Replaced string
}

// Changed reports whether the plan changes anything.
func (p Plan) Changed() bool {
	return len(p.Added)+len(p.Updated)+len(p.Removed) > 0 || p.StatusLine == "set" || p.StatusLine == "updated" || p.StatusLine == "removed" || p.StatusLine == "restored"
}

// InstallOptions say what Install writes.
type InstallOptions struct {
	Command string // the hook command, e.g. "/usr/local/bin/tether hook"
	Events  []string
	Timeout int64
	// Timeouts overrides Timeout per event.
	Timeouts map[string]int64
	// StatusLine, when not "", is the statusLine command to set.
	StatusLine string
	// Force replaces a statusLine that is not tether's.
	Force bool
	// Owner recognises tether's own entries; Command and StatusLine are
	// always among them.
	Owner Owner
}

// Install adds tether's hooks to a settings file's content and returns the
// new content. Only tether's own entries are touched: others, other keys
// and their order stay; a file written in the canonical two- or
// four-space style keeps that style. Running it twice changes nothing.
func Install(data []byte, opts InstallOptions) ([]byte, Plan, error) {
	var plan Plan
	if err := checkSettings(data); err != nil {
		return nil, plan, err
	}
	owner := opts.Owner
	owner.Current = append(slices.Clone(owner.Current), opts.Command)
	// What it installs is tether's, whatever else the owner lists.
	owner.Events = append(slices.Clone(owner.Events), opts.Events...)
	if opts.StatusLine != "" {
		owner.Current = append(owner.Current, opts.StatusLine)
	}
	style := detectStyle(data)
	out := bytes.Clone(data)
	if len(bytes.TrimSpace(out)) == 0 {
		out = []byte("{}")
	}
	want := map[string]bool{}
	for _, e := range opts.Events {
		want[e] = true
	}
	var err error
	// Drop tether's entries for events no longer wanted, and duplicates.
	out, plan.Removed, err = removeEntries(out, owner, func(e Entry, seen map[string]bool) bool {
		return !want[e.Event] || seen[e.Event]
	})
	if err != nil {
		return nil, plan, err
	}
	entries, _ := Installed(out, owner)
	have := map[string]Entry{}
	for _, e := range entries {
		have[e.Event] = e
	}
	for _, ev := range opts.Events {
		timeout := opts.Timeout
		if t, ok := opts.Timeouts[ev]; ok {
			timeout = t
		}
		if e, ok := have[ev]; ok {
			if e.Command == opts.Command && e.Timeout == timeout {
				continue
			}
			base := fmt.Sprintf("hooks.%s.%d.hooks.%d", ev, e.Group, e.Handler)
			if out, err = sjson.SetBytes(out, base+".command", opts.Command); err == nil {
				out, err = sjson.SetBytes(out, base+".timeout", timeout)
			}
			plan.Updated = append(plan.Updated, ev)
		} else {
			group := hookGroup{Hooks: []hookHandler{{Type: "command", Command: opts.Command, Timeout: timeout}}}
			out, err = sjson.SetRawBytes(out, "hooks."+ev+".-1", rawJSON(group))
			plan.Added = append(plan.Added, ev)
		}
		if err != nil {
			return nil, plan, err
		}
	}
	if opts.StatusLine != "" {
		sl := gjson.GetBytes(out, "statusLine")
		switch {
		case !sl.Exists():
			plan.StatusLine = "set"
		case owner.Owns(sl.Get("command").String(), "statusline"):
			if sl.Get("command").String() != opts.StatusLine {
				plan.StatusLine = "updated"
			}
		case opts.Force:
			plan.StatusLine = "updated"
			plan.Replaced = sl.Raw
		default:
			plan.StatusLine = "kept-user"
		}
		if plan.StatusLine == "set" || plan.StatusLine == "updated" {
			sl := statusLine{Type: "command", Command: opts.StatusLine}
			if out, err = sjson.SetRawBytes(out, "statusLine", rawJSON(sl)); err != nil {
				return nil, plan, err
			}
		}
	}
	if !plan.Changed() {
		return data, plan, nil
	}
	return restyle(out, style), plan, nil
}

// Uninstall removes exactly tether's entries (and its statusLine), and
// the containers that only held them. restore, when not "", is the user's
// statusLine (raw JSON) that a forced install replaced: it takes the
// place of tether's.
func Uninstall(data []byte, owner Owner, restore string) ([]byte, Plan, error) {
	var plan Plan
	if err := checkSettings(data); err != nil {
		return nil, plan, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return data, plan, nil
	}
	style := detectStyle(data)
	out, removed, err := removeEntries(bytes.Clone(data), owner, func(Entry, map[string]bool) bool { return true })
	if err != nil {
		return nil, plan, err
	}
	plan.Removed = removed
	if owner.Owns(gjson.GetBytes(out, "statusLine.command").String(), "statusline") {
		if restore != "" && gjson.Valid(restore) {
			out, err = sjson.SetRawBytes(out, "statusLine", []byte(restore))
			plan.StatusLine = "restored"
		} else {
			out, err = sjson.DeleteBytes(out, "statusLine")
			plan.StatusLine = "removed"
		}
		if err != nil {
			return nil, plan, err
		}
	}
	if !plan.Changed() {
		return data, plan, nil
	}
	return restyle(out, style), plan, nil
}

// removeEntries deletes the tether entries drop selects, one at a time
// (indices shift), then any group, event list or hooks object left empty
// by it. seen holds the events already kept, to drop duplicates.
func removeEntries(data []byte, owner Owner, drop func(e Entry, seen map[string]bool) bool) ([]byte, []string, error) {
	var removed []string
	for {
		entries, err := Installed(data, owner)
		if err != nil {
			return nil, nil, err
		}
		seen := map[string]bool{}
		var victim *Entry
		for i := range entries {
			if drop(entries[i], seen) {
				victim = &entries[i]
				break
			}
			seen[entries[i].Event] = true
		}
		if victim == nil {
			sort.Strings(removed)
			return data, removed, nil
		}
		ev := victim.Event
		group := fmt.Sprintf("hooks.%s.%d", ev, victim.Group)
		if data, err = sjson.DeleteBytes(data, fmt.Sprintf("%s.hooks.%d", group, victim.Handler)); err != nil {
			return nil, nil, err
		}
		g := gjson.GetBytes(data, group)
		if len(g.Get("hooks").Array()) == 0 && onlyKeys(g, "hooks", "matcher") {
			data, _ = sjson.DeleteBytes(data, group)
		}
		if len(gjson.GetBytes(data, "hooks."+ev).Array()) == 0 {
			data, _ = sjson.DeleteBytes(data, "hooks."+ev)
		}
		if h := gjson.GetBytes(data, "hooks"); h.IsObject() && len(h.Map()) == 0 {
			data, _ = sjson.DeleteBytes(data, "hooks")
		}
		removed = append(removed, ev)
	}
}

func onlyKeys(obj gjson.Result, keys ...string) bool {
	ok := true
	obj.ForEach(func(k, _ gjson.Result) bool {
		for _, want := range keys {
			if k.Str == want {
				return true
			}
		}
		ok = false
		return false
	})
	return ok
}

// style is how a settings file is indented: "" for a file tether cannot
// reproduce byte for byte (hand-formatted), else the indent unit of a
// canonical JSON.stringify(v, null, indent)-style file, which Claude Code
// itself writes.
type style struct {
	indent  string
	newline bool
}

func detectStyle(data []byte) style {
	if len(bytes.TrimSpace(data)) == 0 {
		return style{indent: "  ", newline: true}
	}
	for _, ind := range []string{"  ", "    ", "\t"} {
		var b bytes.Buffer
		if json.Indent(&b, compact(data), "", ind) != nil {
			return style{}
		}
		if bytes.Equal(b.Bytes(), data) {
			return style{indent: ind}
		}
		if bytes.Equal(append(b.Bytes(), '\n'), data) {
			return style{indent: ind, newline: true}
		}
	}
	return style{}
}

func compact(data []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, data) != nil {
		return data
	}
	return b.Bytes()
}

// restyle re-indents an edited canonical file in its own style; other
// files keep sjson's minimal in-place edit.
func restyle(data []byte, s style) []byte {
	if s.indent == "" {
		return data
	}
	var b bytes.Buffer
	if json.Indent(&b, compact(data), "", s.indent) != nil {
		return data
	}
	if s.newline {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Package picker is the model, update and view of `tether pick`, the
// full-screen session picker. It is pure: everything that touches the
// disk, the catalog or a process is injected through Options, so the model
// can be driven by messages in tests.
package picker

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/tether-dev/tether/catalog"
)

// promptBudget caps how much of the recent prompts a row searches: the
// haystack is scanned on every keystroke for every row.
const promptBudget = 400

// row is one session. What it draws is cleaned when it is drawn (only
// the rows on screen are); what the filter scans is its hay, built for
// every row at once (haystacks).
type row struct {
	s  *catalog.Session
	id string // short id shown, cleaned
}

// hay is what the fuzzy matcher scans of a row: title, dir (with $HOME as
// ~), branch, full id and prompts, cleaned, newline separated. off holds
// where each shown field starts, so match positions map back to the
// cells.
type hay struct {
	text  string
	lower string // text with ASCII letters lowered
	shown int    // text[:shown] is the shown fields (not the prompts)
	off   [4]int // title, dir, branch, id
}

const (
	fTitle = iota
	fDir
	fBranch
	fID
)

// rowTitle, rowDir and rowBranch are the cleaned fields a row draws; the
// hay holds the same strings.
func rowTitle(s *catalog.Session) string            { return clean(s.Title) }
func rowDir(s *catalog.Session, home string) string { return tilde(clean(s.Cwd), home) }
func rowBranch(s *catalog.Session) string           { return clean(s.GitBranch) }

// newRows makes the rows of ss, each with its id's shortest unique prefix
// among them: short when it has one per session, else catalog.ShortIDs
// (one radix sort).
func newRows(ss []catalog.Session, short []string) []row {
	if len(short) != len(ss) {
		short = catalog.ShortIDs(ss)
	}
	rows := make([]row, len(ss))
	for i := range ss {
		rows[i] = row{s: &ss[i], id: clean(short[i])}
	}
	return rows
}

// haystacks is the hay of every row of one set of sessions. The first
// screen needs none of it (with no query nothing is matched), so New
// starts building it in the background and the first filter waits for
// it: typing a query after the first paint finds it ready.
type haystacks struct {
	once sync.Once
	rows []row
	home string
	h    []hay
}

func newHaystacks(rows []row, home string) *haystacks {
	return &haystacks{rows: rows, home: home}
}

// get is the hay of every row, built on first use (a concurrent caller
// waits for the one building it).
func (hs *haystacks) get() []hay {
	if hs == nil { // a zero Model
		return nil
	}
	hs.once.Do(hs.build)
	return hs.h
}

// build writes every row's hay into one buffer and its lower-case copy
// into another: two allocations, not two per row.
func (hs *haystacks) build() {
	buf := make([]byte, 0, 640*len(hs.rows))
	spans := make([]hay, len(hs.rows))
	ends := make([]int, len(hs.rows))
	for i := range hs.rows {
		start := len(buf)
		buf = appendHay(buf, &spans[i], hs.rows[i].s, hs.home)
		for f := range spans[i].off { // offsets within the row's text
			spans[i].off[f] -= start
		}
		spans[i].shown -= start
		ends[i] = len(buf)
	}
	lower := make([]byte, len(buf))
	for i, c := range buf {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	text, ltext := bytesString(buf), bytesString(lower)
	start := 0
	for i := range spans {
		spans[i].text, spans[i].lower = text[start:ends[i]], ltext[start:ends[i]]
		start = ends[i]
	}
	hs.h = spans
}

// appendHay appends s's hay to buf, recording in h the offsets (in buf)
// of its fields and the end of the shown ones.
func appendHay(buf []byte, h *hay, s *catalog.Session, home string) []byte {
	title := rowTitle(s)
	add := func(f int, v string) {
		if f >= 0 {
			h.off[f] = len(buf)
		}
		buf = append(buf, v...)
		buf = append(buf, '\n')
	}
	add(fTitle, title)
	add(fDir, rowDir(s, home))
	add(fBranch, rowBranch(s))
	add(fID, clean(s.ID))
	h.shown = len(buf)
	budget := promptBudget
	prompt := func(p string) {
		if budget <= 0 {
			return
		}
		p = clean(p)
		if len(p) > budget {
			p = p[:budget]
		}
		if p != "" && p != title {
			add(-1, p)
			budget -= len(p)
		}
	}
	prompt(s.FirstPrompt)
	for _, p := range s.RecentPrompts {
		prompt(p)
	}
	return buf
}

// bytesString is b as a string without a copy: b must not change
// afterwards.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// tilde writes a path under home as ~/….
func tilde(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+"/"); ok {
		return "~/" + rest
	}
	return p
}

// fieldPositions returns the match positions (byte offsets) that fall in
// field f, relative to the field's start; idLen is the length of the id
// shown (only that prefix of the full id is highlighted).
func (h *hay) fieldPositions(pos []int, f, idLen int) []int {
	start := h.off[f]
	var end int
	switch f {
	case fTitle:
		end = h.off[fDir] - 1
	case fDir:
		end = h.off[fBranch] - 1
	case fBranch:
		end = h.off[fID] - 1
	case fID:
		end = start + idLen
	}
	var out []int
	for _, p := range pos {
		if p >= start && p < end {
			out = append(out, p-start)
		}
	}
	return out
}

// Package picker is the model, update and view of `tether pick`, the
// full-screen session picker. It is pure: everything that touches the
// disk, the catalog or a process is injected through Options, so the model
// can be driven by messages in tests.
package picker

import (
	"strings"

	"github.com/tether-dev/tether/catalog"
)

// promptBudget caps how much of the recent prompts a row searches: the
// haystack is scanned on every keystroke for every row.
const promptBudget = 400

// row is one session prepared for drawing and matching. Every text field is
// already cleaned of control characters.
type row struct {
	s      *catalog.Session
	id     string // short id shown
	title  string
	dir    string // cwd with $HOME as ~
	branch string
	// hay is what the fuzzy matcher scans: title, dir, branch, full id and
	// prompts, newline separated. off holds where each shown field starts
	// in hay, so match positions map back to the cells.
	hay   string
	lower string // hay with ASCII letters lowered
	shown int    // hay[:shown] is the shown fields (not the prompts)
	off   [4]int // title, dir, branch, id
}

const (
	fTitle = iota
	fDir
	fBranch
	fID
)

func newRow(s *catalog.Session, short, home string) row {
	r := row{s: s, id: clean(short), title: clean(s.Title), dir: tilde(clean(s.Cwd), home), branch: clean(s.GitBranch)}
	var b strings.Builder
	add := func(f int, v string) {
		if f >= 0 {
			r.off[f] = b.Len()
		}
		b.WriteString(v)
		b.WriteByte('\n')
	}
	add(fTitle, r.title)
	add(fDir, r.dir)
	add(fBranch, r.branch)
	add(fID, clean(s.ID))
	r.shown = b.Len()
	budget := promptBudget
	prompts := append([]string{s.FirstPrompt}, s.RecentPrompts...)
	for _, p := range prompts {
		if budget <= 0 {
			break
		}
		p = clean(p)
		if len(p) > budget {
			p = p[:budget]
		}
		if p != "" && p != r.title {
			add(-1, p)
			budget -= len(p)
		}
	}
	r.hay = b.String()
	r.lower = lowerASCII(r.hay)
	return r
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
// field f, relative to the field's start.
func (r *row) fieldPositions(pos []int, f int) []int {
	start := r.off[f]
	end := len(r.hay)
	switch f {
	case fTitle:
		end = start + len(r.title)
	case fDir:
		end = start + len(r.dir)
	case fBranch:
		end = start + len(r.branch)
	case fID:
		end = start + len(r.id) // only the shown prefix is highlighted
	}
	var out []int
	for _, p := range pos {
		if p >= start && p < end {
			out = append(out, p-start)
		}
	}
	return out
}

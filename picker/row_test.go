package picker

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/catalog"
)

// refHay is the hay as the picker built it row by row before the
// haystacks (strings.Builder, one row at a time): the shared-buffer build
// must give the same text, offsets and shown length.
func refHay(s *catalog.Session, home string) hay {
	var h hay
	title := clean(s.Title)
	var b strings.Builder
	add := func(f int, v string) {
		if f >= 0 {
			h.off[f] = b.Len()
		}
		b.WriteString(v)
		b.WriteByte('\n')
	}
	add(fTitle, title)
	add(fDir, tilde(clean(s.Cwd), home))
	add(fBranch, clean(s.GitBranch))
	add(fID, clean(s.ID))
	h.shown = b.Len()
	budget := promptBudget
	for _, p := range append([]string{s.FirstPrompt}, s.RecentPrompts...) {
		if budget <= 0 {
			break
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
	h.text = b.String()
	h.lower = lowerASCII(h.text)
	return h
}

func TestHaystacksAreTheRowsText(t *testing.T) {
	ss := append(fixture(), synthetic(300)...)
	hostile := sess(catalog.ClaudeCode, "ffff6666-0000-4000-8000-000000000006", "/home/example", "Same As Prompt", 0)
	hostile.FirstPrompt = "Same As Prompt"
	hostile.RecentPrompts = []string{"", "two\n\nlines\tand\x1b[2J", strings.Repeat("é", 300), "after the budget"}
	hostile.GitBranch = "feat/\u202eevil"
	ss = append(ss, hostile)
	for _, home := range []string{"/home/example", "", "/"} {
		rows := newRows(ss, nil)
		hays := newHaystacks(rows, home).get()
		for i := range ss {
			if want := refHay(&ss[i], home); hays[i] != want {
				t.Fatalf("home %q, session %d:\n got %+v\nwant %+v", home, i, hays[i], want)
			}
			h := &hays[i]
			// The drawn fields are the hay's.
			if h.text[:h.off[fDir]-1] != rowTitle(&ss[i]) || h.text[h.off[fDir]:h.off[fBranch]-1] != rowDir(&ss[i], home) ||
				h.text[h.off[fBranch]:h.off[fID]-1] != rowBranch(&ss[i]) {
				t.Fatalf("session %d: drawn fields differ from the hay %q", i, h.text)
			}
		}
	}
}

// The short ids given with the sessions are used when there is one per
// session; otherwise they are computed.
func TestRowsShortIDs(t *testing.T) {
	ss := fixture()
	given := []string{"a", "b", "c", "d"}
	if rows := newRows(ss, given); rows[2].id != "c" {
		t.Errorf("given short ids not used: %q", rows[2].id)
	}
	want := catalog.ShortIDs(ss)
	for _, short := range [][]string{nil, given[:3]} {
		if rows := newRows(ss, short); rows[2].id != want[2] {
			t.Errorf("short ids %q: row id %q, want %q", short, rows[2].id, want[2])
		}
	}
}

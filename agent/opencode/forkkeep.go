package opencode

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tether-dev/tether/agent"
)

// ErrNothingToDrop is a fork that would keep every turn of the session.
var ErrNothingToDrop = errors.New("nothing to drop")

// forkPlan is which messages of an export a fork keeps.
type forkPlan struct {
	keep    []message
	turns   int  // human turns kept
	of      int  // human turns in the session
	summary bool // the last good summary before them is kept
}

// planFork picks the last opts.Turns turns of e (a turn is a human prompt
// and every message until the next one), preceded by the last good
// compaction summary and its request when those come before them: that
// summary is the context OpenCode sends in place of what was dropped.
// Failed compactions are left out (OpenCode would retry a pending one),
// and so, with DropUnanswered, are the last turns nothing answered (the
// prompt that overflowed, and OpenCode's replays of it).
func planFork(e *export, opts agent.ForkOptions) (forkPlan, error) {
	if opts.Turns < 1 {
		return forkPlan{}, fmt.Errorf("a fork keeps at least 1 turn, not %d", opts.Turns)
	}
	var starts []int
	for i, m := range e.Messages {
		if m.human() {
			starts = append(starts, i)
		}
	}
	end, dropped := len(e.Messages), 0
	for opts.DropUnanswered && len(starts) > 0 && !turnAnswered(e.Messages[starts[len(starts)-1]:end]) {
		end = starts[len(starts)-1]
		starts = starts[:len(starts)-1]
		dropped++
	}
	if len(starts) == 0 {
		return forkPlan{}, errors.New("the session has no answered turn to keep")
	}
	if opts.Turns >= len(starts) && dropped == 0 {
		return forkPlan{}, fmt.Errorf("%w: the session has %d turns and the fork would keep them all", ErrNothingToDrop, len(starts))
	}
	n := min(opts.Turns, len(starts))
	start := starts[len(starts)-n]
	p := forkPlan{turns: n, of: len(starts) + dropped}
	bad := failedCompactions(e.Messages)
	if req, sum := lastSummary(e.Messages[:start], bad); sum >= 0 {
		p.keep = append(p.keep, e.Messages[req], e.Messages[sum])
		p.summary = true
	}
	for _, m := range e.Messages[start:end] {
		if !bad[m.id()] {
			p.keep = append(p.keep, m)
		}
	}
	return p, nil
}

// turnAnswered reports whether a turn's messages hold an answer that got
// through (a compaction summary is no answer).
func turnAnswered(ms []message) bool {
	for _, m := range ms {
		if m.answered() && !m.summary() {
			return true
		}
	}
	return false
}

// failedCompactions are the ids of the compaction requests that got no
// good summary, and of their failed summaries.
func failedCompactions(ms []message) map[string]bool {
	good := map[string]bool{}
	for _, m := range ms {
		if m.summary() && !m.failed() {
			good[m.parent()] = true
		}
	}
	bad := map[string]bool{}
	for _, m := range ms {
		switch {
		case m.compaction() && !good[m.id()]:
			bad[m.id()] = true
		case m.summary() && m.failed():
			bad[m.id()] = true
		}
	}
	return bad
}

// lastSummary is the index of the last good summary in ms and of the
// compaction request it answers (-1, -1 when there is none).
func lastSummary(ms []message, bad map[string]bool) (req, sum int) {
	for i := len(ms) - 1; i >= 0; i-- {
		if !ms[i].summary() || bad[ms[i].id()] {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if ms[j].id() == ms[i].parent() && ms[j].compaction() {
				return j, i
			}
		}
	}
	return -1, -1
}

// forkExport is the export of the new session: the plan's messages under
// fresh ids (the session's, each message's and each part's), every
// reference among them rewritten, the session made a root session dated
// now. It fails rather than produce an import that would point into the
// original: any original id left in the result is refused.
func forkExport(e *export, p forkPlan, ids *idSource, now time.Time) ([]byte, string, error) {
	old := map[string]bool{str(e.Info, "id"): true}
	for _, m := range e.Messages {
		old[m.id()] = true
		for _, pt := range m.Parts {
			old[str(pt, "id")] = true
		}
	}
	sid := ids.session()
	remap := map[string]string{}
	for _, m := range p.keep {
		remap[m.id()] = ids.next("msg")
		for _, pt := range m.Parts {
			remap[str(pt, "id")] = ids.next("prt")
		}
	}
	info := clone(e.Info)
	info["id"] = sid
	info["title"] = fmt.Sprintf("%s (last %d of %d turns)", str(e.Info, "title"), p.turns, p.of)
	// A fork is a root session of its own: no parent, nothing shared, no
	// revert pointing at the original's messages.
	for _, k := range []string{"parentID", "share", "revert"} {
		delete(info, k)
	}
	ms := json.Number(fmt.Sprint(now.UnixMilli()))
	info["time"] = map[string]any{"created": ms, "updated": ms}
	out := export{Info: info}
	for _, m := range p.keep {
		nm, err := forkMessage(m, sid, remap)
		if err != nil {
			return nil, "", err
		}
		out.Messages = append(out.Messages, nm)
	}
	if ref := findOld(out, old); ref != "" {
		return nil, "", fmt.Errorf("unfamiliar reference to %s in the export: refusing to import a fork that points into the original", ref)
	}
	data, err := json.Marshal(out)
	return data, sid, err
}

func forkMessage(m message, sid string, remap map[string]string) (message, error) {
	info := clone(m.Info)
	info["id"], info["sessionID"] = remap[m.id()], sid
	if par := m.parent(); par != "" {
		np, ok := remap[par]
		if !ok {
			return message{}, fmt.Errorf("message %s answers %s, which the fork does not keep", m.id(), par)
		}
		info["parentID"] = np
	}
	nm := message{Info: info, Parts: []map[string]any{}}
	for _, pt := range m.Parts {
		np := clone(pt)
		np["id"], np["messageID"], np["sessionID"] = remap[str(pt, "id")], info["id"], sid
		// A compaction's tail starts at a message kept verbatim; one the
		// fork dropped leaves the summary alone in front of the kept turns.
		if t, ok := pt["tail_start_id"].(string); ok {
			if nt, kept := remap[t]; kept {
				np["tail_start_id"] = nt
			} else {
				delete(np, "tail_start_id")
			}
		}
		nm.Parts = append(nm.Parts, np)
	}
	return nm, nil
}

// clone copies a JSON object deeply enough for the edits: the top level
// is new, nested values are shared and never written.
func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// findOld is the first original id still in e (a field tether does not
// know to rewrite), or "".
func findOld(e export, old map[string]bool) string {
	var walk func(v any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case string:
			if old[x] {
				return x
			}
		case map[string]any:
			for _, y := range x {
				if r := walk(y); r != "" {
					return r
				}
			}
		case []any:
			for _, y := range x {
				if r := walk(y); r != "" {
					return r
				}
			}
		case []map[string]any:
			for _, y := range x {
				if r := walk(y); r != "" {
					return r
				}
			}
		}
		return ""
	}
	if r := walk(e.Info); r != "" {
		return r
	}
	for _, m := range e.Messages {
		if r := walk(m.Info); r != "" {
			return r
		}
		for _, p := range m.Parts {
			if str(p, "type") == "text" || str(p, "type") == "reasoning" {
				// Text is the conversation: a prompt may quote an id.
				p = withoutKey(p, "text")
			}
			if r := walk(p); r != "" {
				return r
			}
		}
	}
	return ""
}

func withoutKey(m map[string]any, k string) map[string]any {
	out := clone(m)
	delete(out, k)
	return out
}

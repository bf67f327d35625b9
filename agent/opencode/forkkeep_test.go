package opencode

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// The real exports: sample-export.json is `opencode export` of a session
// of three turns with a manual compaction before the third;
// sample-export-compaction-failed.json one whose third prompt overflowed,
// was compacted automatically and replayed, overflowed again, and whose
// second compaction failed ("Session too large to compact").
func sampleExport(t *testing.T, name string) (*export, []byte) {
	t.Helper()
	data, err := os.ReadFile(testutil.Testdata(t, "opencode-1.18.33", name))
	if err != nil {
		t.Fatal(err)
	}
	e, err := parseExport(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e, data
}

func TestSnapshotOfTheSamples(t *testing.T) {
	e, _ := sampleExport(t, "sample-export.json")
	s := e.snapshot()
	if s.Turns != 3 || s.Messages != 9 || s.CompactionFailed || s.Provider != "fake" || s.Model != "fake-model" || s.Dir != "/home/example/proj" {
		t.Errorf("sample: %+v", s)
	}
	f, _ := sampleExport(t, "sample-export-compaction-failed.json")
	if s := f.snapshot(); !s.CompactionFailed || s.Turns != 4 {
		t.Errorf("failed compaction: %+v", s)
	}
}

func ids(ms []message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.id())
	}
	return out
}

func TestPlanForkKeepsTheLastTurnsAndTheSummaryBefore(t *testing.T) {
	e, _ := sampleExport(t, "sample-export.json")
	all := ids(e.Messages)
	cases := []struct {
		turns   int
		keep    []string
		summary bool
	}{
		// The summary (messages 5, 6) precedes the last turn: kept.
		{1, all[5:], true},
		// Two turns: the summary is inside them.
		{2, all[3:], false},
	}
	for _, c := range cases {
		p, err := planFork(e, agent.ForkOptions{Turns: c.turns})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(p.keep); strings.Join(got, " ") != strings.Join(c.keep, " ") || p.summary != c.summary || p.of != 3 || p.turns != c.turns {
			t.Errorf("keep %d: %v summary=%v of=%d, want %v", c.turns, got, p.summary, p.of, c.keep)
		}
	}
	if _, err := planFork(e, agent.ForkOptions{Turns: 3}); !errors.Is(err, ErrNothingToDrop) {
		t.Errorf("keep 3 of 3: %v", err)
	}
	if _, err := planFork(e, agent.ForkOptions{Turns: 0}); err == nil {
		t.Error("keep 0 allowed")
	}
}

// A failed compaction is left out of a fork (OpenCode would take the
// pending request up again), and the good summary before it kept.
func TestPlanForkDropsAFailedCompaction(t *testing.T) {
	e, _ := sampleExport(t, "sample-export-compaction-failed.json")
	all := ids(e.Messages)
	p, err := planFork(e, agent.ForkOptions{Turns: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 6, 7: the good compaction; 8, 9: the replayed prompt and its empty
	// answer; 10, 11: the failed compaction.
	want := []string{all[6], all[7], all[8], all[9]}
	if got := ids(p.keep); strings.Join(got, " ") != strings.Join(want, " ") || !p.summary {
		t.Errorf("keep 1: %v, want %v", got, want)
	}
	// Its last two turns (the prompt that overflowed and OpenCode's replay
	// of it) were never answered: the wrapper leaves them out, keeps the
	// answered turn before them, and sends the prompt again.
	p, err = planFork(e, agent.ForkOptions{Turns: 1, DropUnanswered: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.keep); strings.Join(got, " ") != strings.Join(all[2:4], " ") || p.of != 4 || p.summary {
		t.Errorf("keep 1 answered: %v, want %v", got, all[2:4])
	}
}

func TestForkExportIsAValidImportOfNewIDs(t *testing.T) {
	e, _ := sampleExport(t, "sample-export.json")
	p, err := planFork(e, agent.ForkOptions{Turns: 1})
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1796160000000)
	data, sid, err := forkExport(e, p, newIDSource(now), now)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseExport(data)
	if err != nil {
		t.Fatalf("the fork does not parse: %v", err)
	}
	if str(f.Info, "id") != sid || !strings.HasPrefix(sid, "ses_") || len(sid) != len(str(e.Info, "id")) {
		t.Errorf("session id %q", sid)
	}
	// Descending: the newer session sorts before the original.
	if sid >= str(e.Info, "id") {
		t.Errorf("session id %s does not sort before the older %s", sid, str(e.Info, "id"))
	}
	if !strings.HasSuffix(str(f.Info, "title"), " (last 1 of 3 turns)") {
		t.Errorf("title %q", str(f.Info, "title"))
	}
	newest, kept := e.Messages[len(e.Messages)-1].id(), map[string]bool{}
	for i, m := range f.Messages {
		orig := p.keep[i]
		if m.id() <= newest || len(m.id()) != len(orig.id()) {
			t.Errorf("message id %s does not sort after the originals", m.id())
		}
		if i > 0 && m.id() <= f.Messages[i-1].id() {
			t.Errorf("message ids out of order: %s after %s", m.id(), f.Messages[i-1].id())
		}
		kept[m.id()] = true
		if par := m.parent(); par != "" && !kept[par] {
			t.Errorf("message %s answers %s, not a kept message before it", m.id(), par)
		}
		if len(m.Parts) != len(orig.Parts) {
			t.Errorf("message %s: %d parts, was %d", m.id(), len(m.Parts), len(orig.Parts))
		}
		for j, pt := range m.Parts {
			if str(pt, "type") != str(orig.Parts[j], "type") || str(pt, "text") != str(orig.Parts[j], "text") {
				t.Errorf("part %d of %s changed", j, m.id())
			}
		}
	}
	if ref := findOld(*f, map[string]bool{str(e.Info, "id"): true, e.Messages[5].id(): true}); ref != "" {
		t.Errorf("original id %s left in the fork", ref)
	}
	if !f.Messages[1].summary() || f.Messages[1].parent() != f.Messages[0].id() || !f.Messages[0].compaction() {
		t.Errorf("the summary is not bound to its request: %v", ids(f.Messages))
	}
}

// An id in a field tether does not rewrite would tie the fork to the
// original: refused, never imported.
func TestForkExportRefusesAnUnknownReference(t *testing.T) {
	e, _ := sampleExport(t, "sample-export.json")
	e.Messages[8].Parts[1]["metadata"] = map[string]any{"pointsAt": e.Messages[0].id()}
	p, err := planFork(e, agent.ForkOptions{Turns: 1})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := forkExport(e, p, newIDSource(now), now); err == nil || !strings.Contains(err.Error(), e.Messages[0].id()) {
		t.Errorf("unknown reference: %v", err)
	}
}

func TestParseExportRefusesTheUnfamiliar(t *testing.T) {
	_, data := sampleExport(t, "sample-export.json")
	edit := func(f func(d map[string]any)) []byte {
		var d map[string]any
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		f(d)
		b, _ := json.Marshal(d)
		return b
	}
	msg := func(d map[string]any, i int) map[string]any { return d["messages"].([]any)[i].(map[string]any) }
	part := func(d map[string]any, i, j int) map[string]any { return msg(d, i)["parts"].([]any)[j].(map[string]any) }
	cases := map[string][]byte{
		"not an OpenCode export":     []byte(`[1,2]`),
		`unknown field "extra"`:      edit(func(d map[string]any) { d["extra"] = 1 }),
		"is not a session id":        edit(func(d map[string]any) { d["info"].(map[string]any)["id"] = "x" }),
		"not an absolute directory":  edit(func(d map[string]any) { d["info"].(map[string]any)["directory"] = "rel" }),
		`unfamiliar role "system"`:   edit(func(d map[string]any) { msg(d, 0)["info"].(map[string]any)["role"] = "system" }),
		`unfamiliar part type "new"`: edit(func(d map[string]any) { part(d, 1, 0)["type"] = "new" }),
		"not bound to message":       edit(func(d map[string]any) { part(d, 1, 0)["messageID"] = "msg_other" }),
		"is not a new message id":    edit(func(d map[string]any) { msg(d, 1)["info"].(map[string]any)["id"] = "msg_232ec6d19001RREWGak6h7BtGb" }),
	}
	for want, in := range cases {
		if _, err := parseExport(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}

func TestIDsAreOpenCodes(t *testing.T) {
	now := time.UnixMilli(1796150684953)
	s := newIDSource(now)
	s.rand = func() uint64 { return 0 }
	// msg_232ec6d19001… is the sample's first message, made at that
	// millisecond with counter 1.
	if got := s.next("msg"); got != "msg_232ec6d19001"+strings.Repeat("0", 14) {
		t.Errorf("message id %s", got)
	}
	// The sample's session, made at 1796150684543 (a millisecond before its
	// time.created), counter 1: ses_dcd139480ffe….
	if got := newIDSource(time.UnixMilli(1796150684543)).session(); !strings.HasPrefix(got, "ses_dcd139480ffe") || len(got) != 30 {
		t.Errorf("session id %s", got)
	}
}

package searchindex

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"

	_ "modernc.org/sqlite"
)

// OpenCode's sessions, rows of one database, are indexed from it (their
// prompts, and with all the assistant's text and tool calls) and read
// again only when one changes: the database is not opened as a
// transcript, nor recorded as a failed read and opened at every update.
func TestIndexOpenCode(t *testing.T) {
	f := newFixture(t)
	sessiontest.OpenCodeDB(t, f.dir)
	r := opencodesessions.New(f.dir, "").Sessions(agent.ReaderConfig{})
	ss, diags, err := r.List(ctx, agent.ListOptions{All: true})
	if err != nil || len(diags) != 0 || len(ss) != 2 {
		t.Fatalf("list: %d sessions, %v %v", len(ss), diags, err)
	}
	f.ss = ss
	var opened atomic.Int32
	open := func(name string) (catalog.File, error) {
		opened.Add(1)
		return nil, errors.New("opened " + name)
	}
	st := f.updateWith(UpdateOptions{Open: open})
	if st.Added != 2 || opened.Load() != 0 {
		t.Fatalf("first update: %+v, %d files opened", st, opened.Load())
	}
	key := agent.OpenCode + ":" + sessiontest.SampleOpenCode
	if got := f.find("compaction", false); !slices.Equal(got, []string{key}) {
		t.Errorf("prompt: %v", got)
	}
	// The assistant's text ("Hello from fake model (call 43)") only with
	// all text (the other session is titled so).
	if got := f.find("fake model", false); len(got) != 1 || got[0] == key {
		t.Errorf("assistant text found without all text: %v", got)
	}
	if got := f.find("fake model", true); len(got) != 2 {
		t.Errorf("assistant text: %v", got)
	}
	// The synthetic continuation after the overflow is not a prompt.
	if got := f.find("exceeded", false); len(got) != 0 {
		t.Errorf("synthetic text as a prompt: %v", got)
	}
	// Nothing changed: nothing is read again.
	f.ss[0].Title += " " // the listing differs, the sessions do not
	st = f.updateWith(UpdateOptions{Open: open})
	if st.Unchanged != 2 || st.Reindexed+st.Appended+st.Added != 0 || st.BytesRead != 0 {
		t.Errorf("second update: %+v", st)
	}
	// A session that changed (OpenCode touched it) is read again.
	f.ss[1].SourceMTime++
	if st = f.updateWith(UpdateOptions{Open: open}); st.Unchanged != 1 || st.Reindexed+st.Appended != 1 {
		t.Errorf("after a change: %+v", st)
	}
	if opened.Load() != 0 {
		t.Errorf("%d files opened", opened.Load())
	}
}

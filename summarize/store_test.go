package summarize

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

func TestKey(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k := Key("claude-code", "a", t0)
	for _, other := range []string{Key("codex", "a", t0), Key("claude-code", "b", t0), Key("claude-code", "a", t0.Add(time.Nanosecond))} {
		if other == k {
			t.Errorf("key %q collides", k)
		}
	}
	if Key("claude-code", "a", t0.In(time.FixedZone("x", 3600))) != k {
		t.Error("the same instant in another zone is another key")
	}
}

func TestStoreRoundTrip(t *testing.T) {
	data := filepath.Join(t.TempDir(), "tether")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if s, err := Load(data, "claude-code", "abc"); s != nil || err != nil {
		t.Fatalf("missing summary: %v %v", s, err)
	}
	sum := catalog.Summary{Title: "t", Objective: "o", Provider: "command", LastActivity: t0}
	if err := Save(data, "claude-code", "abc", sum); err != nil {
		t.Fatal(err)
	}
	p, _ := Path(data, "claude-code", "abc")
	for path, want := range map[string]os.FileMode{p: 0o600, filepath.Dir(p): 0o700, Dir(data): 0o700} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", path, st.Mode().Perm(), want, err)
		}
	}
	got, err := Load(data, "claude-code", "abc")
	if err != nil || got.Title != "t" || !got.LastActivity.Equal(t0) {
		t.Fatalf("load: %+v %v", got, err)
	}
	s := catalog.Session{Harness: "claude-code", ID: "abc", LastActivity: t0}
	Attach(data, &s)
	if s.Summary == nil || !s.Summary.Current {
		t.Errorf("current summary not attached: %+v", s.Summary)
	}
	s = catalog.Session{Harness: "claude-code", ID: "abc", LastActivity: t0.Add(time.Minute)}
	Attach(data, &s)
	if s.Summary == nil || s.Summary.Current {
		t.Errorf("a changed session's summary is current: %+v", s.Summary)
	}
	list := []catalog.Session{{Harness: "codex", ID: "abc"}, {Harness: "claude-code", ID: "abc", LastActivity: t0}}
	AttachAll(data, list)
	if list[0].Summary != nil || list[1].Summary == nil {
		t.Errorf("AttachAll: %+v %+v", list[0].Summary, list[1].Summary)
	}
}

func TestPathRefusesEscapes(t *testing.T) {
	for _, id := range []string{"", "..", "a/b", "../x", "a\x00b"} {
		if _, err := Path("/d", "claude-code", id); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestCoversFailedResume(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sum := &catalog.Summary{LastActivity: t0, HumanPrompts: 3}
	at := func(d time.Duration, prompts int) catalog.Session {
		return catalog.Session{LastActivity: t0.Add(d), Counts: &catalog.Counts{HumanPrompts: prompts}}
	}
	for _, tc := range []struct {
		s    catalog.Session
		want bool
	}{
		{at(0, 3), true},             // current
		{at(time.Minute, 4), true},   // the failed attempt's prompt
		{at(time.Minute, 3), true},   // nothing human appended
		{at(time.Minute, 5), false},  // a real turn and the failed one
		{at(-time.Minute, 3), false}, // summary from another history
	} {
		if got := CoversFailedResume(sum, tc.s); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.s, got, tc.want)
		}
	}
	if CoversFailedResume(&catalog.Summary{LastActivity: t0}, at(time.Minute, 1)) {
		t.Error("a summary without a prompt count covers a changed session")
	}
}

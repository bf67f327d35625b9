package codexsessions_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// codexDaysRig is a Codex home whose one rollout was last written days
// ago, listed by a fresh reader (a new process) over one cache file.
type codexDaysRig struct {
	t       *testing.T
	dir     string
	rollout string
	cache   string
	now     time.Time
	procs   sessiontest.OpenFiles
}

func newCodexDaysRig(t *testing.T) *codexDaysRig {
	dir, rollout := sessiontest.CodexHome(t, true)
	rg := &codexDaysRig{t: t, dir: dir, rollout: rollout, cache: filepath.Join(t.TempDir(), "codex.gob"), now: time.Now(), procs: sessiontest.OpenFiles{}}
	rg.idle()
	return rg
}

// idle puts the rollout's and its directory's mtimes three days back.
func (rg *codexDaysRig) idle() {
	old := time.Now().Add(-72 * time.Hour)
	sessiontest.SetMTime(rg.t, rg.rollout, old)
	sessiontest.SetMTime(rg.t, filepath.Dir(rg.rollout), old)
}

func (rg *codexDaysRig) list() agent.Session {
	rg.t.Helper()
	r := &codexsessions.Reader{Dir: rg.dir, Procs: rg.procs, Cache: codexsessions.OpenCache(rg.cache), Now: func() time.Time { return rg.now }}
	ss, diags, err := r.List(context.Background(), agent.ListOptions{})
	if err != nil || len(diags) != 0 || len(ss) != 1 {
		rg.t.Fatalf("list: %v %v %d sessions", err, diags, len(ss))
	}
	return ss[0]
}

// appendTurn appends a human prompt at ts in place (the directory's mtime
// stays) and keeps the rollout's old mtime, as if nothing had touched it.
func (rg *codexDaysRig) appendTurn(ts time.Time) {
	rg.t.Helper()
	fi, err := os.Stat(rg.rollout)
	if err != nil {
		rg.t.Fatal(err)
	}
	f, err := os.OpenFile(rg.rollout, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		rg.t.Fatal(err)
	}
	f.WriteString(`{"timestamp":"` + ts.UTC().Format(time.RFC3339Nano) + `","type":"event_msg","payload":{"type":"user_message","message":"later"}}` + "\n")
	f.Close()
	sessiontest.SetMTime(rg.t, rg.rollout, fi.ModTime())
}

func (rg *codexDaysRig) setUpdated(ts time.Time) {
	rg.t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(rg.dir, "state_5.sqlite"))
	if err != nil {
		rg.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE threads SET updated_at = ?", ts.Unix()); err != nil {
		rg.t.Fatal(err)
	}
}

// An idle day directory is trusted: its rollout is not stat-ed (the skip
// is real: an append with the mtime put back is not seen) until the state
// database says the thread was updated, a process holds the rollout, the
// directory changes, or the record is an hour old.
func TestCodexDayDirSkip(t *testing.T) {
	later := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		change func(rg *codexDaysRig)
	}{
		{"updated in the state database", func(rg *codexDaysRig) { rg.setUpdated(time.Now().Add(time.Minute)) }},
		{"running", func(rg *codexDaysRig) { rg.procs[rg.rollout] = 4321 }},
		{"directory changed", func(rg *codexDaysRig) {
			sessiontest.WriteFile(t, filepath.Join(filepath.Dir(rg.rollout), "other.txt"), []byte("x"))
			sessiontest.SetMTime(t, filepath.Dir(rg.rollout), time.Now().Add(-time.Hour))
		}},
		{"record an hour old", func(rg *codexDaysRig) { rg.now = rg.now.Add(scan.DirRecheck + time.Minute) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rg := newCodexDaysRig(t)
			first := rg.list()
			rg.list() // trusted from now on
			rg.appendTurn(later)
			if s := rg.list(); lastHuman(s) != lastHuman(first) {
				t.Fatalf("trusted directory was read: last human activity %v, want %v", lastHuman(s), lastHuman(first))
			}
			tc.change(rg)
			if s := rg.list(); !lastHuman(s).Equal(later) {
				t.Errorf("append not seen: last human activity %v, want %v", lastHuman(s), later)
			}
		})
	}
}

// A directory written in the last day is never trusted: every append is
// seen at once.
func TestCodexDayDirSkipHotDir(t *testing.T) {
	rg := newCodexDaysRig(t)
	sessiontest.SetMTime(t, rg.rollout, time.Now().Add(-time.Hour))
	rg.list()
	rg.list()
	later := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rg.appendTurn(later)
	if s := rg.list(); !lastHuman(s).Equal(later) {
		t.Errorf("append not seen: last human activity %v, want %v", lastHuman(s), later)
	}
}

func lastHuman(s agent.Session) time.Time {
	if s.LastHumanActivity == nil {
		return time.Time{}
	}
	return *s.LastHumanActivity
}

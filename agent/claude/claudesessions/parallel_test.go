package claudesessions_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// Enough transcripts for the sessions to be built in parallel, with
// unreadable ones among them: every good transcript gives its session,
// each bad one a diagnostic, cold and warm (from the cache) alike.
func TestClaudeManySessionsInParallel(t *testing.T) {
	dir := t.TempDir()
	const n = 4321
	bad := map[string]bool{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012d", i, i)
		p := filepath.Join(dir, "projects", fmt.Sprintf("-home-example-p%d", i%7), id+".jsonl")
		if i%997 == 3 {
			sessiontest.WriteFile(t, p, nil) // empty: a diagnostic
			bad[id] = true
			continue
		}
		cwd := fmt.Sprintf("/home/example/p%d", i%7)
		sessiontest.WriteFile(t, p, sessiontest.JSONLines(sessiontest.UserRec(id, cwd, "2026-11-30T10:00:00Z", fmt.Sprintf("prompt %d", i), nil)))
	}
	cache := claudesessions.OpenCache(filepath.Join(t.TempDir(), "c.gob"))
	for _, pass := range []string{"cold", "warm"} {
		r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Cache: cache}
		ss, diags, err := r.List(context.Background(), agent.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != n-len(bad) || len(diags) != len(bad) {
			t.Fatalf("%s: %d sessions, %d diagnostics; want %d, %d", pass, len(ss), len(diags), n-len(bad), len(bad))
		}
		seen := map[string]bool{}
		for _, s := range ss {
			if bad[s.ID] || seen[s.ID] || s.Cwd == "" || s.Source == "" || filepath.Base(s.Source) != s.ID+".jsonl" || s.SourceMTime == 0 {
				t.Fatalf("%s: bad session %+v", pass, s)
			}
			seen[s.ID] = true
		}
		cache.Save()
		cache = claudesessions.OpenCache(cache.Path())
	}
}

package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// A Claude Code listing carries each transcript's size and mtime, so the
// search index need not stat it again: from a fresh read, from a cached
// summary (stat-ed) and from a trusted directory (not stat-ed: the size
// and mtime the cache recorded).
func TestClaudeListCarriesSourceSizeAndMTime(t *testing.T) {
	old, dir, proj, ids := idleDirSkipHome(t)
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	now := time.Now()
	r := &claudesessions.Reader{Dir: dir, Now: func() time.Time { return now }}
	for _, pass := range []string{"fresh read", "trusted directory"} {
		got := listWith(t, r, cachePath)
		for _, id := range ids {
			fi, err := os.Stat(filepath.Join(proj, id+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if s := got[id]; s.SourceSize != fi.Size() || s.SourceMTime != fi.ModTime().UnixNano() {
				t.Errorf("%s: %s listed with %d bytes at %d, file has %d at %d", pass, id, s.SourceSize, s.SourceMTime, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	// A cached summary of an untrusted directory (its mtime changed).
	sessiontest.SetMTime(t, proj, old.Add(time.Second))
	now = time.Now().Add(3 * time.Second)
	got := listWith(t, r, cachePath)
	fi, _ := os.Stat(filepath.Join(proj, ids[0]+".jsonl"))
	if s := got[ids[0]]; s.SourceSize != fi.Size() || s.SourceMTime != fi.ModTime().UnixNano() {
		t.Errorf("cached: listed with %d at %d, file has %d at %d", s.SourceSize, s.SourceMTime, fi.Size(), fi.ModTime().UnixNano())
	}
}

// A Codex listing carries each rollout's size and mtime too: from a
// fresh read, from a cached tail (stat-ed) and from a trusted day
// directory (not stat-ed: what the cache recorded), with and without the
// state database.
func TestCodexListCarriesSourceSizeAndMTime(t *testing.T) {
	for _, db := range []bool{true, false} {
		dir, rollout := sessiontest.CodexHome(t, db)
		old := time.Now().Add(-72 * time.Hour)
		sessiontest.SetMTime(t, rollout, old)
		sessiontest.SetMTime(t, filepath.Dir(rollout), old)
		cachePath := filepath.Join(t.TempDir(), "codex.gob")
		fi, err := os.Stat(rollout)
		if err != nil {
			t.Fatal(err)
		}
		for _, pass := range []string{"fresh read", "cached", "trusted directory"} {
			r := &codexsessions.Reader{Dir: dir, Cache: codexsessions.OpenCache(cachePath)}
			ss, _, err := r.List(context.Background(), ListOptions{})
			if err != nil || len(ss) != 1 {
				t.Fatalf("db %v, %s: %v, %d sessions", db, pass, err, len(ss))
			}
			if s := ss[0]; s.SourceSize != fi.Size() || s.SourceMTime != fi.ModTime().UnixNano() {
				t.Errorf("db %v, %s: listed with %d bytes at %d, file has %d at %d", db, pass, s.SourceSize, s.SourceMTime, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
}

package searchindex

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// manySessions lists n sessions with some text each.
func manySessions(f *fixture, n int) {
	for i := range n {
		var b strings.Builder
		for j := range 40 {
			b.WriteString(userLine(fmt.Sprintf("prompt %d of session %d about xylophone%d and xenon%d", j, i, j, i)))
			b.WriteString(assistantLine(fmt.Sprintf("answer %d xerox%d", j, i), "Edit", fmt.Sprintf("/p/x%d.go", j)))
		}
		f.session(catalog.ClaudeCode, fmt.Sprintf("s%04d", i), fmt.Sprintf("session %d", i), b.String(), time.Duration(i)*time.Minute)
	}
}

// Two tethers building the same cold index at once (two `tether sessions
// index`, or a search beside one) both succeed with the same index: one
// builds, the other waits for it and finds nothing left to do.
func TestConcurrentColdBuilds(t *testing.T) {
	f := newFixture(t)
	manySessions(f, 300)
	path := filepath.Join(t.TempDir(), "search.db")
	for round := range 3 {
		_ = Remove(path)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		counts := make([]int, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ix, err := Open(path)
				if err != nil {
					errs[i] = fmt.Errorf("open: %w", err)
					return
				}
				defer ix.Close()
				if _, err := ix.Update(ctx, f.ss, UpdateOptions{}); err != nil {
					errs[i] = fmt.Errorf("update: %w", err)
					return
				}
				counts[i], errs[i] = ix.Count(ctx)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, build %d: %v", round, i, err)
			}
			if counts[i] != len(f.ss) {
				t.Errorf("round %d, build %d: %d sessions indexed, want %d", round, i, counts[i], len(f.ss))
			}
		}
	}
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	terms, _ := ParseQuery("xenon7")
	if hits, err := ix.Search(ctx, Query{Terms: terms}); err != nil || len(hits) != 1 || hits[0].Key != "claude-code:s0007" {
		t.Errorf("search after the builds: %v %v", hits, err)
	}
}

// TestBuildHelper is the child of TestConcurrentColdBuildProcesses: it
// builds the index named in the environment from the listing there.
func TestBuildHelper(t *testing.T) {
	path := os.Getenv("TETHER_TEST_INDEX")
	if path == "" {
		t.Skip("a helper of TestConcurrentColdBuildProcesses")
	}
	var ss []catalog.Session
	data, err := os.ReadFile(os.Getenv("TETHER_TEST_LISTING"))
	if err == nil {
		err = json.Unmarshal(data, &ss)
	}
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer ix.Close()
	if _, err := ix.Update(ctx, ss, UpdateOptions{}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if n, err := ix.Count(ctx); err != nil || n != len(ss) {
		t.Fatalf("%d sessions indexed (%v), want %d", n, err, len(ss))
	}
}

// The same as processes, as two `tether sessions index` run.
func TestConcurrentColdBuildProcesses(t *testing.T) {
	f := newFixture(t)
	manySessions(f, 300)
	dir := t.TempDir()
	listing := filepath.Join(dir, "listing.json")
	data, _ := json.Marshal(f.ss)
	if err := os.WriteFile(listing, data, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "search.db")
	for round := range 2 {
		_ = Remove(path)
		cmds := make([]*exec.Cmd, 3)
		outs := make([]bytes.Buffer, 3)
		for i := range cmds {
			cmds[i] = exec.Command(os.Args[0], "-test.run", "^TestBuildHelper$", "-test.count=1")
			cmds[i].Env = append(os.Environ(), "TETHER_TEST_INDEX="+path, "TETHER_TEST_LISTING="+listing)
			cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
			if err := cmds[i].Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Errorf("round %d, build %d: %v\n%s", round, i, err, outs[i].String())
			}
		}
	}
}

// A writer held up past lockWait gives up with ErrLocked, having said it
// waits; a cancelled one stops at once.
func TestUpdateLockBounded(t *testing.T) {
	f := newFixture(t)
	manySessions(f, 3)
	unlock, err := lock(ctx, f.ix.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 200 * time.Millisecond
	waits := 0
	if _, err := f.ix.Update(ctx, f.ss, UpdateOptions{Waiting: func() { waits++ }}); !errors.Is(err, ErrLocked) || waits != 1 {
		t.Errorf("held lock: %v, waiting called %d times", err, waits)
	}
	lockWait = time.Hour
	c, cancel := context.WithCancel(ctx)
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() { _, err := f.ix.Update(c, f.ss, UpdateOptions{}); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled wait: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled update kept waiting for the lock")
	}
}

// An index opened while another tether's build holds SQLite's exclusive
// lock past the busy timeout (a large first build spills its cache to
// the file) waits for that writer instead of failing with SQLITE_BUSY.
func TestOpenWaitsForWriter(t *testing.T) {
	f := newFixture(t)
	manySessions(f, 3)
	f.update()
	path := f.ix.Path()
	unlock, err := lock(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	// Past the 5 s busy timeout, the writer finishes.
	time.AfterFunc(7*time.Second, func() {
		conn.ExecContext(ctx, `ROLLBACK`)
		conn.Close()
		unlock()
	})
	ix, err := Open(path)
	if err != nil {
		t.Fatalf("open beside a writer: %v", err)
	}
	defer ix.Close()
	if n, err := ix.Count(ctx); err != nil || n != 3 {
		t.Errorf("count: %d %v", n, err)
	}
}

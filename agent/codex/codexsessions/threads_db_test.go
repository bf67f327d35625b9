package codexsessions_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// The state database's rows are taken from the cache while the database
// is as it was (size, mtime, inode), read again when any of them changes,
// when the record is scan.DirRecheck old, and never trusted when the database
// was written within scan.DirRacyWindow of the read that made it.
func TestCodexThreadsCachedWhileDBUnchanged(t *testing.T) {
	dir, _ := sessiontest.CodexHome(t, true)
	db := filepath.Join(dir, "state_5.sqlite")
	cachePath := filepath.Join(t.TempDir(), "c.gob")
	old := time.Now().Add(-time.Hour)
	age := func() {
		if err := os.Chtimes(db, old, old); err != nil {
			t.Fatal(err)
		}
	}
	setTitle := func(title string) {
		d, err := sql.Open("sqlite", db)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if _, err := d.Exec(`UPDATE threads SET title = ?`, title); err != nil {
			t.Fatal(err)
		}
	}
	list := func(at time.Time) string {
		t.Helper()
		r := &codexsessions.Reader{Dir: dir, Cache: codexsessions.OpenCache(cachePath), Now: func() time.Time { return at }}
		m, _ := sessiontest.List(t, r, false)
		return m[sessiontest.SampleCodex].Title
	}
	now := time.Now()
	age()
	if got := list(now); got != "TOOL_BASH please" {
		t.Fatalf("first list: %q", got)
	}
	// Same size, mtime and inode: the recorded rows (one query an hour,
	// not one per listing).
	setTitle("TOOL_BASH PLEASE")
	age()
	if got := list(now.Add(time.Minute)); got != "TOOL_BASH please" {
		t.Errorf("unchanged database: %q, want the recorded title", got)
	}
	if got := list(now.Add(scan.DirRecheck + time.Minute)); got != "TOOL_BASH PLEASE" {
		t.Errorf("after an hour: %q", got)
	}
	// A write shows in the mtime: read at once.
	setTitle("another title")
	at := time.Now().Add(scan.DirRecheck + 2*time.Minute)
	if got := list(at); got != "another title" {
		t.Errorf("after a write: %q", got)
	}
	// A read within scan.DirRacyWindow of the database's mtime makes a record
	// that is not trusted: a write in the same clock tick would not show.
	setTitle("third title")
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	m := fi.ModTime()
	if got := list(m.Add(time.Second)); got != "third title" {
		t.Fatalf("third: %q", got)
	}
	setTitle("fourth title")
	if err := os.Chtimes(db, m, m); err != nil {
		t.Fatal(err)
	}
	if got := list(m.Add(1500 * time.Millisecond)); got != "fourth title" {
		t.Errorf("racy record trusted: %q", got)
	}
}

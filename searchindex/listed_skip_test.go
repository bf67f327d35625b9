package searchindex

import (
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// changeCounter is SQLite's file change counter (header offset 24): every
// committed write transaction increments it.
func changeCounter(t *testing.T, path string) uint32 {
	t.Helper()
	b := make([]byte, 28)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return uint32(b[24])<<24 | uint32(b[25])<<16 | uint32(b[26])<<8 | uint32(b[27])
}

// Opening an index of the current schema writes nothing: a search that
// finds nothing changed must not rewrite the file (which also tells the
// next list that the index changed).
func TestOpenOfCurrentIndexDoesNotWrite(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "c1", "t", userLine("words"), 0)
	f.update()
	path := f.ix.Path()
	before := changeCounter(t, path)
	fi0, _ := os.Stat(path)
	for i := 0; i < 2; i++ {
		ix, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
	fi1, _ := os.Stat(path)
	if after := changeCounter(t, path); after != before || !fi1.ModTime().Equal(fi0.ModTime()) {
		t.Errorf("reopening wrote the index: counter %d → %d, mtime %v → %v", before, after, fi0.ModTime(), fi1.ModTime())
	}
}

// An update given the very listing the previous update found nothing to
// do for (and nothing wrote the index since) compares nothing: it skips.
// Anything that would make the full comparison act is seen.
func TestUnchangedListingIsSkipped(t *testing.T) {
	f := newFixture(t)
	p1 := f.session(catalog.ClaudeCode, "c1", "first", userLine("alpha words"), time.Hour)
	f.session(catalog.ClaudeCode, "c2", "second", userLine("beta words"), 0)
	if st := f.update(); st.Added != 2 || st.Skipped {
		t.Fatalf("first: %+v", st)
	}
	if st := f.update(); st.Unchanged != 2 || st.Skipped {
		t.Fatalf("second (compares, then records the listing): %+v", st)
	}
	if st := f.update(); st.Unchanged != 2 || !st.Skipped {
		t.Fatalf("third: want skipped, got %+v", st)
	}
	// An append changes the transcript's size: read.
	appendTo(t, p1, userLine("gamma appended"))
	if st := f.update(); st.Appended != 1 || st.Skipped || len(f.find("gamma", false)) != 1 {
		t.Fatalf("append: %+v", st)
	}
	f.update()
	// A new title.
	f.ss[1].Title = "renamed"
	if st := f.update(); st.Skipped || len(f.find("renamed", false)) != 1 {
		t.Fatalf("retitle: %+v", st)
	}
	f.update()
	// A summary stamp.
	stamp := "1/2/3"
	opts := UpdateOptions{SummaryStamp: func(*catalog.Session) string { return stamp },
		SummaryText: func(*catalog.Session) (string, error) { return "summary zebra", nil }}
	if st, err := f.ix.Update(ctx, f.ss, opts); err != nil || st.Skipped || st.Summaries != 2 {
		t.Fatalf("summary: %+v %v", st, err)
	}
	f.ix.Update(ctx, f.ss, opts)
	if st, _ := f.ix.Update(ctx, f.ss, opts); !st.Skipped {
		t.Fatalf("summary unchanged: %+v", st)
	}
	// Another writer (an older tether, say) changes the file: compare.
	db, err := sql.Open("sqlite", f.ix.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE files SET title = 'x' WHERE key = 'claude-code:c1'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if st, _ := f.ix.Update(ctx, f.ss, opts); st.Skipped {
		t.Fatalf("written by another: %+v", st)
	}
	// A session retained while missing from the listing is not recorded
	// as current: the next listing may drop it.
	f.ix.Update(ctx, f.ss, opts)
	retain := opts
	retain.Retain = func(string) bool { return true }
	for i := 0; i < 2; i++ {
		if st, _ := f.ix.Update(ctx, f.ss[:1], retain); st.Skipped {
			t.Fatalf("retained: %+v", st)
		}
	}
	if st, _ := f.ix.Update(ctx, f.ss[:1], opts); st.Removed != 1 {
		t.Fatalf("dropped: %+v", st)
	}
}

// A skipped update reports the distinct sessions of the listing it
// recorded, though the digest hashes every listed session (a duplicate
// included) without building a set of them; a record of the previous
// format (no count) is not trusted.
func TestSkippedUpdateCountsDistinctSessions(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "c1", "first", userLine("alpha words"), time.Hour)
	f.session(catalog.ClaudeCode, "c2", "second", userLine("beta words"), 0)
	f.ss = append(f.ss, f.ss[1]) // listed twice
	f.update()
	f.update()
	if st := f.update(); !st.Skipped || st.Unchanged != 2 {
		t.Fatalf("want skipped with 2 unchanged, got %+v", st)
	}
	// The same sessions listed without the duplicate: another listing.
	f.ss = f.ss[:2]
	if st := f.update(); st.Skipped || st.Unchanged != 2 {
		t.Fatalf("without the duplicate: %+v", st)
	}
	if st := f.update(); !st.Skipped || st.Unchanged != 2 {
		t.Fatalf("again: %+v", st)
	}
	// An old record: version, digest, stamp.
	data, err := os.ReadFile(listedFile(f.ix.Path()))
	if err != nil {
		t.Fatal(err)
	}
	fs := strings.Fields(string(data))
	old := "1 " + fs[1] + " " + fs[3] + "\n"
	if err := os.WriteFile(listedFile(f.ix.Path()), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := f.update(); st.Skipped || st.Unchanged != 2 {
		t.Fatalf("old record trusted: %+v", st)
	}
}

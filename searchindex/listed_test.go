package searchindex

import (
	"os"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// A session that carries the size and mtime its listing saw is compared
// by them, without a stat of its own: the listing's word is the index's.
// One without them is stat-ed.
func TestIndexTakesTheListingsSizeAndMtime(t *testing.T) {
	f := newFixture(t)
	path := f.session(catalog.ClaudeCode, "c1", "t", userLine("alpha bravo"), 0)
	f.update()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, userLine("charlie delta"))
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	// As listed before the append: the index has all of it.
	f.ss[0].SourceSize, f.ss[0].SourceMTime = fi.Size(), fi.ModTime().UnixNano()
	if st := f.update(); st.Unchanged != 1 || st.BytesRead != 0 {
		t.Fatalf("listed as unchanged: %+v", st)
	}
	// As listed after it (or not known: stat-ed), the new line is read.
	for _, known := range []bool{true, false} {
		f.ss[0].SourceSize, f.ss[0].SourceMTime = 0, 0
		if known {
			fi, _ := os.Stat(path)
			f.ss[0].SourceSize, f.ss[0].SourceMTime = fi.Size(), fi.ModTime().UnixNano()
		}
		st := f.update()
		if known && (st.Appended != 1 || st.BytesRead == 0) || !known && st.Unchanged != 1 {
			t.Fatalf("known=%v: %+v", known, st)
		}
	}
	if got := f.find("charlie", false); len(got) != 1 {
		t.Errorf("charlie: %v", got)
	}
}

package searchindex

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// A ranking taken before the index was written is not current: by this
// connection's update or by another process's (its own connection). One
// with nothing written since is, so a search may take it.
func TestRankingCurrent(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "a", "t", userLine("zebra crossing"), 0)
	f.update()
	terms, _ := ParseQuery("zebra")
	r, err := f.ix.Rank(ctx, terms, false)
	if err != nil || r.Len() != 1 {
		t.Fatalf("rank: %v, %d", err, r.Len())
	}
	if !f.ix.Current(r) {
		t.Fatal("nothing written, yet the ranking is not current")
	}
	// The first update compares the listing with the index's rows, the
	// second skips that: neither writes.
	for range 2 {
		if st := f.update(); !st.nothingChanged() || !f.ix.Current(r) {
			t.Fatalf("an update that writes nothing made the ranking stale (%+v)", st)
		}
	}
	f.session(catalog.ClaudeCode, "b", "t", userLine("zebra again"), 0)
	f.update()
	if f.ix.Current(r) {
		t.Fatal("ranking still current after the update wrote a new session")
	}
	r, _ = f.ix.Rank(ctx, terms, false)
	other, err := Open(filepath.Join(f.dir, "cache", "tether", "search.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	f.session(catalog.ClaudeCode, "c", "t", userLine("zebra three"), 0)
	if _, err := other.Update(ctx, f.ss, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if f.ix.Current(r) {
		t.Fatal("ranking still current after another connection wrote the index")
	}
	if r, _ = f.ix.Rank(ctx, terms, false); r.Len() != 3 {
		t.Errorf("re-ranked: %d hits, want 3", r.Len())
	}
}

// Equal scores are ordered newest first across the limit: the sessions
// beyond the limit that tie with the last one shown are looked at too,
// with the filter applied before the limit, and only those returned get
// snippets.
func TestTopTiesAcrossTheLimit(t *testing.T) {
	f := newFixture(t)
	// Ten identical transcripts (one score), oldest first, and one that
	// scores better (a title hit) but is the oldest of all.
	for i := range 10 {
		f.session(catalog.ClaudeCode, fmt.Sprintf("s%d", i), "t", userLine("tied word"), time.Duration(10-i)*time.Hour)
	}
	f.session(catalog.ClaudeCode, "best", "tied", userLine("other"), 100*time.Hour)
	f.update()
	terms, _ := ParseQuery("tied")
	r, err := f.ix.Rank(ctx, terms, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit int
		drop  string
		want  []string
	}{
		{3, "", []string{"best", "s9", "s8"}},
		{4, "s9", []string{"best", "s8", "s7", "s6"}},
		{0, "best", []string{"s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "s0"}},
		{11, "", []string{"best", "s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "s0"}},
	} {
		hits, err := f.ix.Top(ctx, r, func(k string) bool { return k != "claude-code:"+c.drop }, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Key[len("claude-code:"):])
			if len(h.Snippets) == 0 {
				t.Errorf("limit %d: %s has no snippet", c.limit, h.Key)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("limit %d without %q: %v, want %v", c.limit, c.drop, got, c.want)
		}
	}
}

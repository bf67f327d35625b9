package catalog

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// SortNewest moves sessions in place along the permutation's cycles; the
// result must be what a plain stable sort by (last activity desc, key)
// gives, ties and equal keys included.
func TestSortNewestMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{0, 1, 2, 3, 10, 257} {
		ss := make([]Session, n)
		for i := range ss {
			h := ClaudeCode
			if rng.IntN(3) == 0 {
				h = Codex
			}
			ss[i] = Session{Harness: h, ID: fmt.Sprintf("%04d", rng.IntN(n+1)), Title: fmt.Sprint(i),
				LastActivity: t0.Add(time.Duration(rng.IntN(5))*time.Minute + time.Duration(rng.IntN(3)))}
			if rng.IntN(4) == 0 {
				// The same instant in another zone, and times before 1970
				// (a negative second with a positive nanosecond).
				ss[i].LastActivity = ss[i].LastActivity.In(time.FixedZone("", -5*3600))
			}
			if rng.IntN(8) == 0 {
				ss[i].LastActivity = time.Unix(-1, int64(rng.IntN(3)))
			}
			if rng.IntN(10) == 0 {
				ss[i].LastActivity = time.Time{}
			}
		}
		want := append([]Session(nil), ss...)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if !a.LastActivity.Equal(b.LastActivity) {
				return a.LastActivity.After(b.LastActivity)
			}
			return a.Key() < b.Key()
		})
		SortNewest(ss)
		for i := range ss {
			if ss[i].Title != want[i].Title {
				t.Fatalf("n=%d: position %d holds %s (%s), want %s (%s)", n, i, ss[i].Key(), ss[i].Title, want[i].Key(), want[i].Title)
			}
		}
	}
}

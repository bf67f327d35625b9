package picker

import (
	"runtime"
	"slices"
	"sync"

	"github.com/sahilm/fuzzy"
)

// match is a row that passed the filter, with the byte offsets in its
// haystack that the query matched.
type match struct {
	row   int
	pos   []int
	score int
}

// source feeds the candidates' haystacks to the fuzzy matcher.
type source struct {
	rows []row
	cand []int
}

func (s source) String(i int) string { return s.rows[s.cand[i]].hay }
func (s source) Len() int            { return len(s.cand) }

// parallelMin is the candidate count above which filtering is split over
// the CPUs; below it the goroutines cost more than they save.
const parallelMin = 2000

// filter fuzzy-matches query against the candidate rows (indexes into
// rows, newest first). An empty query keeps every candidate in order;
// otherwise the best score comes first and recency breaks ties.
func filter(rows []row, cand []int, query string) []match {
	if query == "" {
		out := make([]match, len(cand))
		for i, c := range cand {
			out[i] = match{row: c}
		}
		return out
	}
	parts := 1
	if len(cand) >= parallelMin {
		parts = runtime.GOMAXPROCS(0)
	}
	results := make([][]match, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(cand)/parts, (p+1)*len(cand)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			chunk := cand[lo:hi]
			for _, m := range fuzzy.FindFromNoSort(query, source{rows, chunk}) {
				results[p] = append(results[p], match{row: chunk[m.Index], pos: m.MatchedIndexes, score: m.Score})
			}
		}()
	}
	wg.Wait()
	out := slices.Concat(results...)
	// Candidates are in recency order and chunks are concatenated in
	// order, so a stable sort keeps the newest first among equal scores.
	slices.SortStableFunc(out, func(a, b match) int { return b.score - a.score })
	return out
}

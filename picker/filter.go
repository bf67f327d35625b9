package picker

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/sahilm/fuzzy"
)

// match is a row that passed the filter. The matched positions are not
// kept: only the drawn rows need them (see row.positions), and keeping
// them allocated for every row on every keystroke.
type match struct {
	row   int
	score int
}

// parallelMin is the candidate count above which filtering is split over
// the CPUs; below it the goroutines cost more than they save.
const parallelMin = 2000

// filter fuzzy-matches query against the candidate rows (indexes into
// rows, newest first). Every space-separated term must match (as in fzf).
// An empty query keeps every candidate in order; otherwise the best score
// comes first and recency breaks ties.
func filter(hs *haystacks, cand []int, query string) []match {
	terms := strings.Fields(query)
	if len(terms) == 0 {
		out := make([]match, len(cand))
		for i, c := range cand {
			out[i] = match{row: c}
		}
		return out
	}
	hays := hs.get()
	parts := 1
	if len(cand) >= parallelMin {
		parts = runtime.GOMAXPROCS(0)
	}
	results := make([][]match, parts)
	panics := make([]any, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(cand)/parts, (p+1)*len(cand)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic here would end the process with the terminal raw:
			// it is raised again on the caller's goroutine, where Bubble
			// Tea recovers and restores the terminal.
			defer func() { panics[p] = recover() }()
			results[p] = matchTerms(hays, cand[lo:hi], terms)
		}()
	}
	wg.Wait()
	for _, r := range panics {
		if r != nil {
			panic(r)
		}
	}
	out := slices.Concat(results...)
	// Candidates are in recency order and chunks are concatenated in
	// order, so a stable sort keeps the newest first among equal scores.
	slices.SortStableFunc(out, func(a, b match) int { return b.score - a.score })
	return out
}

// matchTerms keeps the candidates every term matches, each term searching
// only the survivors of the previous ones. A term found literally is found
// with strings.Index (memchr-fast); only rows where it occurs scattered
// in the shown fields go through sahilm/fuzzy for a score and positions,
// which keeps 10,000 rows within a keystroke's budget.
func matchTerms(hays []hay, cand []int, terms []string) []match {
	cur := make([]match, len(cand))
	for i, c := range cand {
		cur[i] = match{row: c}
	}
	for _, t := range terms {
		lt := lowerASCII(t)
		next := make([]match, 0, len(cur))
		var fuzzyIdx []int // indexes into next of rows sahilm scores
		for _, m := range cur {
			r := &hays[m.row]
			if at := strings.Index(r.lower, lt); at >= 0 {
				// A literal occurrence beats any scattered match: score
				// it above them and highlight it.
				m.score += substringBonus + len(t)
				if at == 0 || isWordSep(r.lower[at-1]) {
					m.score += wordStartBonus
				}
			} else if !subsequence(r.lower, lt) {
				continue
			} else if subsequence(r.lower[:r.shown], lt) {
				fuzzyIdx = append(fuzzyIdx, len(next))
			}
			// else: scattered over the prompts, which are not drawn;
			// kept with no bonus.
			next = append(next, m)
		}
		if len(fuzzyIdx) > 0 {
			src := shownSource{hays, next, fuzzyIdx}
			for _, fm := range fuzzy.FindFromNoSort(t, src) {
				m := &next[fuzzyIdx[fm.Index]]
				// sahilm/fuzzy subtracts one point per unmatched byte, which
				// ranks by length; add it back so the score is the quality
				// of the match alone.
				m.score += fm.Score + hays[m.row].shown - len(fm.MatchedIndexes)
			}
		}
		cur = next
	}
	return cur
}

// positions are the byte offsets of r's haystack that query matches, as
// filter matched them: each term's literal occurrence, else its fuzzy
// match in the shown fields (a match only in the prompts shows nothing).
func (r *hay) positions(query string) []int {
	var pos []int
	for _, t := range strings.Fields(query) {
		lt := lowerASCII(t)
		if at := strings.Index(r.lower, lt); at >= 0 {
			for i := range len(t) {
				pos = append(pos, at+i)
			}
			continue
		}
		if ms := fuzzy.Find(t, []string{r.text[:r.shown]}); len(ms) == 1 {
			pos = append(pos, ms[0].MatchedIndexes...)
		}
	}
	slices.Sort(pos)
	return pos
}

// shownSource feeds sahilm/fuzzy the shown fields of selected rows.
type shownSource struct {
	hays []hay
	ms   []match
	idx  []int
}

func (s shownSource) String(i int) string {
	r := &s.hays[s.ms[s.idx[i]].row]
	return r.text[:r.shown]
}
func (s shownSource) Len() int { return len(s.idx) }

// subsequence reports whether the bytes of t occur in s in order.
func subsequence(s, t string) bool {
	for i := 0; i < len(t); i++ {
		j := strings.IndexByte(s, t[i])
		if j < 0 {
			return false
		}
		s = s[j+1:]
	}
	return true
}

// Bonuses for a term found literally (case-insensitively) in the haystack;
// sahilm/fuzzy scores stay far below substringBonus once its length
// penalty is taken out.
const (
	substringBonus = 10000
	wordStartBonus = 1000
)

func isWordSep(c byte) bool {
	return c == ' ' || c == '\n' || c == '/' || c == '-' || c == '_' || c == '.' || c == ':'
}

// lowerASCII lowers ASCII letters only, so byte offsets into the result
// are byte offsets into s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Package suggest names the likely intended word for a mistyped one (a
// command, a flag, a column), for "did you mean" in one-line errors.
package suggest

import (
	"fmt"
	"strings"
)

// Closest is the candidate nearest to typed (edit distance, a prefix
// counts as near), or "" when none is close enough to be a likely typo.
// urfave/cli's own suggester always names something, however far.
func Closest(typed string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := editDistance(typed, c)
		if len(typed) >= 3 && strings.HasPrefix(c, typed) {
			d = 1
		}
		if d > 2 || d*2 >= len(c) {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean is " — did you mean "x"?" or "" (s empty).
func DidYouMean(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" — did you mean %q?", s)
}

// editDistance is the optimal string alignment distance between a and b:
// Levenshtein's, with two adjacent letters swapped as one edit ("cots"
// for "cost", a common typo, is one edit away, not two).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Rows i-2, i-1 and i of the distance matrix.
	pprev, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(rb)]
}

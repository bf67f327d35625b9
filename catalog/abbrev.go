package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tether-dev/tether/identity"
)

// Abbrev is the abbreviator over every session listed: each id's shortest
// unique prefix (at least eight characters) among them. Show it in place
// of ShortID wherever the whole catalog was listed anyway.
func Abbrev(ss []Session) *identity.Abbreviator {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return identity.NewAbbreviator(ids)
}

// ShortIDs is Abbrev(ss).Short of each session's id, in ss's order, for
// a table of every session listed: one sort, each id's neighbours in it
// giving its length (Short's binary search per id, after Abbrev's sort,
// cost a warm list of 10,000 sessions ~20 ms of CPU).
func ShortIDs(ss []Session) []string {
	// Bodies are sorted by their first eight bytes as a number, then the
	// rest: the order of the strings, with most comparisons on integers.
	type ent struct {
		key  uint64
		body string
		i    int
	}
	es := make([]ent, 0, len(ss))
	out := make([]string, len(ss))
	for i := range ss {
		if b := identity.SessionBody(ss[i].ID); b != "" {
			es = append(es, ent{prefixKey(b), b, i})
		}
	}
	slices.SortFunc(es, func(a, b ent) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.body, b.body)
	})
	// Runs of equal bodies are one id of the set: each takes its length
	// from the distinct bodies before and after the run.
	for lo := 0; lo < len(es); {
		hi := lo + 1
		for hi < len(es) && es[hi].body == es[lo].body {
			hi++
		}
		body := es[lo].body
		n := minShort
		if lo > 0 {
			n = max(n, commonPrefix(body, es[lo-1].body)+1)
		}
		if hi < len(es) {
			n = max(n, commonPrefix(body, es[hi].body)+1)
		}
		if n < len(body) {
			body = body[:n]
		}
		for _, e := range es[lo:hi] {
			out[e.i] = body
		}
		lo = hi
	}
	return out
}

// minShort is identity's shortest abbreviation (eight characters).
const minShort = 8

// prefixKey is s's first eight bytes, big-endian, zero-padded: ordering
// keys orders the strings, ties aside.
func prefixKey(s string) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

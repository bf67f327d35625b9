package catalog

import (
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
	// Bodies are sorted by their first eight bytes as a number (a radix
	// sort), then, where those tie, by the rest: the order of the strings.
	out := make([]string, len(ss))
	bodies := make([]string, 0, len(ss))
	sessionOf := make([]int32, 0, len(ss)) // bodies[k] is the id of ss[sessionOf[k]]
	es := make([]keyIndex, 0, len(ss))
	for i := range ss {
		if b := identity.SessionBody(ss[i].ID); b != "" {
			es = append(es, keyIndex{prefixKey(b), int32(len(bodies))})
			bodies = append(bodies, b)
			sessionOf = append(sessionOf, int32(i))
		}
	}
	radixSort(es)
	for lo := 0; lo < len(es); {
		hi := lo + 1
		for hi < len(es) && es[hi].key == es[lo].key {
			hi++
		}
		if hi-lo > 1 {
			slices.SortStableFunc(es[lo:hi], func(a, b keyIndex) int { return strings.Compare(bodies[a.i], bodies[b.i]) })
		}
		lo = hi
	}
	body := func(e keyIndex) string { return bodies[e.i] }
	// Runs of equal bodies are one id of the set: each takes its length
	// from the distinct bodies before and after the run.
	for lo := 0; lo < len(es); {
		hi := lo + 1
		for hi < len(es) && es[hi].key == es[lo].key && body(es[hi]) == body(es[lo]) {
			hi++
		}
		b := body(es[lo])
		n := minShort
		if lo > 0 {
			n = max(n, commonPrefix(b, body(es[lo-1]))+1)
		}
		if hi < len(es) {
			n = max(n, commonPrefix(b, body(es[hi]))+1)
		}
		if n < len(b) {
			b = b[:n]
		}
		for _, e := range es[lo:hi] {
			out[sessionOf[e.i]] = b
		}
		lo = hi
	}
	return out
}

// keyIndex is a sort key and the index of what it stands for.
type keyIndex struct {
	key uint64
	i   int32
}

// radixSort sorts es by key, stably: eight passes of one byte each (a
// pass is skipped when every key has the same byte there). Ten thousand
// ids sorted this way take a fraction of a comparison sort's time.
func radixSort(es []keyIndex) {
	if len(es) < 2 {
		return
	}
	tmp := make([]keyIndex, len(es))
	src, dst := es, tmp
	for shift := 0; shift < 64; shift += 8 {
		var count [257]int
		for _, e := range src {
			count[int(byte(e.key>>shift))+1]++
		}
		if count[int(byte(src[0].key>>shift))+1] == len(src) {
			continue
		}
		for d := 1; d < 257; d++ {
			count[d] += count[d-1]
		}
		for _, e := range src {
			d := byte(e.key >> shift)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &es[0] {
		copy(es, src)
	}
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

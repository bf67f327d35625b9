package identity

import (
	"sort"
)

// minShort is the shortest abbreviation given: eight characters, as
// before, when they are enough.
const minShort = 8

// Abbreviator gives each session id its shortest unique prefix among a set
// of ids, like git's abbreviated hashes: at least eight characters of the
// body, longer where another id shares them (Codex's UUIDv7 ids started in
// the same minute share their first eight).
type Abbreviator struct {
	bodies []string // sorted, distinct
}

// NewAbbreviator indexes ids (any prefix before "_" is ignored, as in
// SessionBody).
func NewAbbreviator(ids []string) *Abbreviator {
	bodies := make([]string, 0, len(ids))
	for _, id := range ids {
		if b := SessionBody(id); b != "" {
			bodies = append(bodies, b)
		}
	}
	sort.Strings(bodies)
	out := bodies[:0]
	for i, b := range bodies {
		if i == 0 || b != bodies[i-1] {
			out = append(out, b)
		}
	}
	return &Abbreviator{bodies: out}
}

// Short is id's shortest prefix that no other id in the set shares, at
// least eight characters (the whole body when shorter). id need not be in
// the set. A nil Abbreviator gives ShortID.
func (a *Abbreviator) Short(id string) string {
	body := SessionBody(id)
	if a == nil {
		return ShortID(id)
	}
	i := sort.SearchStrings(a.bodies, body)
	n := minShort
	if i > 0 {
		n = max(n, commonPrefix(body, a.bodies[i-1])+1)
	}
	next := i
	if next < len(a.bodies) && a.bodies[next] == body {
		next++
	}
	if next < len(a.bodies) {
		n = max(n, commonPrefix(body, a.bodies[next])+1)
	}
	if n >= len(body) {
		return body
	}
	return body[:n]
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Abbrev maps each of ids to its abbreviation among them.
func Abbrev(ids []string) map[string]string {
	a := NewAbbreviator(ids)
	m := make(map[string]string, len(ids))
	for _, id := range ids {
		m[id] = a.Short(id)
	}
	return m
}

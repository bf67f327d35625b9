package scan

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
)

// ValueBlocks hands out the small values a listing's sessions point to
// (resume argv, last human time, context, message count) from blocks of
// filecache.ValueBlock, not one allocation each: 10,000 sessions made ~35,000
// allocations of them. A nil *ValueBlocks allocates each value.
type ValueBlocks struct {
	strs  []string
	times []time.Time
	ctxs  []agent.ContextUsage
	ints  []int
}

// Strings returns a slice holding ss, its capacity its length (an append
// to it copies, never writing into the block).
func (b *ValueBlocks) Strings(ss ...string) []string {
	if b == nil {
		return slices.Clone(ss)
	}
	if len(b.strs)+len(ss) > cap(b.strs) {
		b.strs = make([]string, 0, max(filecache.ValueBlock, len(ss)))
	}
	n := len(b.strs)
	b.strs = append(b.strs, ss...)
	return b.strs[n : n+len(ss) : n+len(ss)]
}

// Time returns a pointer to a copy of t.
func (b *ValueBlocks) Time(t time.Time) *time.Time {
	if b == nil {
		v := t // a copy: &t would move every call's t to the heap
		return &v
	}
	return blockValue(&b.times, t)
}

// Context returns a pointer to a copy of c.
func (b *ValueBlocks) Context(c agent.ContextUsage) *agent.ContextUsage {
	if b == nil {
		v := c // a copy: &c would move every call's c to the heap
		return &v
	}
	return blockValue(&b.ctxs, c)
}

// Int returns a pointer to a copy of n.
func (b *ValueBlocks) Int(n int) *int {
	if b == nil {
		v := n // a copy: &n would move every call's n to the heap
		return &v
	}
	return blockValue(&b.ints, n)
}

// blockValue stores v in *block (a new block when it is full) and returns
// where.
func blockValue[T any](block *[]T, v T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, filecache.ValueBlock)
	}
	*block = append(*block, v)
	return &(*block)[len(*block)-1]
}

// OneLine collapses whitespace and cuts s to max runes, for titles.
func OneLine(s string, max int) string {
	if singleSpaced(s) {
		if len(s) <= max {
			return s // already one line: no allocation (every title, every warm list)
		}
		// ASCII: a rune a byte. The cut below, without splitting and
		// joining the words and converting to runes (a fifth of the
		// titles of a warm list are cut).
		return s[:max-1] + "…"
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// singleSpaced reports whether strings.Fields would find s's words
// separated by single ASCII spaces, with none around them: ASCII with no
// other white space, and no Unicode white space either (any non-ASCII
// byte says no, to stay simple).
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

func LastN(ss []string, n int) []string {
	if len(ss) > n {
		ss = ss[len(ss)-n:]
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = OneLine(s, 500)
	}
	return out
}

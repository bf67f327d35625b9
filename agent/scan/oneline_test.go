package scan

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// OneLine's fast paths give what collapsing the white space and cutting
// to max runes gives: short and long titles, ASCII or not, single-spaced
// or not.
func TestOneLineMatchesReference(t *testing.T) {
	ref := func(s string, max int) string {
		s = strings.Join(strings.Fields(s), " ")
		if utf8.RuneCountInString(s) <= max {
			return s
		}
		return string([]rune(s)[:max-1]) + "…"
	}
	long := strings.Repeat("fix the parser ", 20)
	for _, s := range []string{"", "a", "fix the parser", long, strings.TrimSpace(long), " " + long, long + "\n",
		strings.Replace(long, " ", "  ", 3), strings.Replace(long, " ", "\t", 5), "café " + long, strings.Repeat("é", 250),
		strings.Repeat("x", 199), strings.Repeat("x", 200), strings.Repeat("x", 201), "a\u00a0b " + long} {
		for _, max := range []int{1, 2, 10, 199, 200, 201} {
			if got, want := OneLine(s, max), ref(s, max); got != want {
				t.Errorf("OneLine(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
)

// cell's fast paths give what collapsing, escaping and cutting give, for
// titles the catalog cut ("…" last) and ones that only look so.
func TestCellFastPathsMatch(t *testing.T) {
	slow := func(s string, max int) string {
		s = termsafe.String(strings.Join(strings.Fields(s), " "))
		if s == "" {
			return "-"
		}
		return table.Truncate(s, max)
	}
	long := strings.Repeat("fix the parser ", 10)
	for _, s := range []string{"", "a", "…", "a…", "fix the parser", "fix the parser…", long + "…", strings.TrimSpace(long) + "…",
		" lead…", "two  spaces…", "tab\there…", "ctl\x1b[31m…", "é…", "a…b", "a……", "bidi\u202e…"} {
		for _, max := range []int{1, 3, 10, 60, 1 << 10} {
			if got, want := cell(s, max), slow(s, max); got != want {
				t.Errorf("cell(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}

func TestParseDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{"90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, "1.5d": 36 * time.Hour} {
		if got, err := parseDuration(s); err != nil || got != want {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	for _, s := range []string{"", "x", "-1h", "-2d", "d"} {
		if _, err := parseDuration(s); err == nil {
			t.Errorf("%q: want error", s)
		}
	}
}

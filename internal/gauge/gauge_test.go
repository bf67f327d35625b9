package gauge

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestPct(t *testing.T) {
	for p, want := range map[float64]string{
		0: "0", 0.1136: "0.1", 0.04: "0", 1: "1", 9.94: "9.9", 9.96: "10", 10.4: "10", 62.5: "63", 99.6: "100",
	} {
		if got := Pct(p); got != want {
			t.Errorf("Pct(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestColour(t *testing.T) {
	for p, want := range map[float64]string{0: "green", 55: "green", 60: "yellow", 79.9: "yellow", 80: "red"} {
		if got := Default.Colour(p); got != want {
			t.Errorf("Colour(%v) = %q, want %q", p, got, want)
		}
	}
}

// tokensByFmt is Tokens as it was written with fmt.
func tokensByFmt(n int64) string {
	switch {
	case n >= 1_000_000:
		s := fmt.Sprintf("%.1f", float64(n)/1e6)
		return strings.TrimSuffix(s, ".0") + "M"
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	case n >= 1000:
		s := fmt.Sprintf("%.1f", float64(n)/1e3)
		return strings.TrimSuffix(s, ".0") + "k"
	}
	return fmt.Sprint(n)
}

func TestTokens(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 1000: "1k", 1136: "1.1k", 9999: "10k", 12_345: "12k", 1_000_000: "1M", 1_250_000: "1.2M", 1_950_000: "1.9M"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q, want %q", n, got, want)
		}
	}
	// The same bytes as fmt wrote, over every magnitude and rounding edge.
	ns := []int64{math.MinInt64, -1_500_000, -1, 999, 999_999, 1_049_999, 1_050_000, 9_950_000, 1 << 40, math.MaxInt64}
	for n := int64(1); n < math.MaxInt64/7; n = n*7 + 3 {
		ns = append(ns, n, n-1, n+1, n*10+5)
	}
	for _, n := range ns {
		if got, want := Tokens(n), tokensByFmt(n); got != want {
			t.Errorf("Tokens(%d) = %q, fmt wrote %q", n, got, want)
		}
	}
}

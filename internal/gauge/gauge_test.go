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

// tokensByFmt is Tokens written the plain way, with fmt and math.Round.
func tokensByFmt(n int64) string {
	f := float64(n)
	trim := func(s string) string { return strings.TrimSuffix(s, ".0") }
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case math.Round(f/100)/10 < 10:
		return trim(fmt.Sprintf("%.1f", math.Round(f/100)/10)) + "k"
	case math.Round(f/1000) < 1000:
		return fmt.Sprintf("%.0fk", math.Round(f/1000))
	case math.Round(f/1e5)/10 < 10:
		return trim(fmt.Sprintf("%.1f", math.Round(f/1e5)/10)) + "M"
	}
	return fmt.Sprintf("%.0fM", math.Round(f/1e6))
}

func TestTokens(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 999: "999", 1000: "1k", 1136: "1.1k", 1500: "1.5k",
		9949: "9.9k", 9950: "10k", 12_345: "12k", 12_600: "13k", 999_499: "999k", 999_999: "1M", 1_000_000: "1M",
		1_250_000: "1.3M", 1_950_000: "2M", 12_600_000: "13M"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q, want %q", n, got, want)
		}
	}
	// The same bytes as the plain way, over every magnitude and rounding edge.
	ns := []int64{-1, 999, 9_949, 9_950, 999_499, 999_500, 1_049_999, 1_050_000, 9_949_999, 9_950_000, 1 << 40}
	for n := int64(1); n < 1<<50; n = n*7 + 3 {
		ns = append(ns, n, n-1, n+1, n*10+5)
	}
	for _, n := range ns {
		if got, want := Tokens(n), tokensByFmt(n); got != want {
			t.Errorf("Tokens(%d) = %q, the plain way wrote %q", n, got, want)
		}
	}
}

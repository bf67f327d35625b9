// Package gauge is the one place that decides how a context percentage is
// written and coloured, so the statusLine and every shell's prompt segment
// show the same number in the same colour for the same session.
package gauge

import (
	"math"
	"strconv"
)

// Thresholds are the percentages from which a gauge turns yellow (Warn)
// and red (Crit).
type Thresholds struct{ Warn, Crit float64 }

// Default is used when the config sets nothing: yellow from 60%, red from 80%.
var Default = Thresholds{Warn: 60, Crit: 80}

// Pct writes p (a percentage) without the % sign: one decimal below 10%,
// so 0.1% of a million-token window does not read as 0%, and whole
// numbers from 10%. The value is rounded once, before the choice, so 9.96
// is "10" and never "10.0".
func Pct(p float64) string {
	r := math.Round(p*10) / 10
	if r < 10 && r != math.Trunc(r) {
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return strconv.FormatFloat(math.Round(p), 'f', 0, 64)
}

// Colour names the colour of p: "green", "yellow" or "red".
func (t Thresholds) Colour(p float64) string {
	switch {
	case p >= t.Crit:
		return "red"
	case p >= t.Warn:
		return "yellow"
	}
	return "green"
}

// Tokens formats a token count compactly, rounded to the nearest: 999,
// 1.5k, 13k, 1M, 1.2M. It is the one token formatter: the statusLine, the
// prompt segment, the list and the picker show the same string for the
// same number. By strconv, as fmt's %.1f and %d would write it: the
// statusLine draws two on every render, and fmt's first use allocates its
// printer.
func Tokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 9_950: // one decimal while it still reads below 10k
		return tenths(n, 100) + "k"
	case n < 999_500:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	case n < 9_950_000:
		return tenths(n, 100_000) + "M"
	}
	return strconv.FormatInt((n+500_000)/1_000_000, 10) + "M"
}

// tenths is n/(10*unit) rounded to one decimal, without a trailing ".0".
func tenths(n, unit int64) string {
	t := (n + unit/2) / unit // in tenths
	s := strconv.FormatInt(t/10, 10)
	if t%10 != 0 {
		s += "." + strconv.FormatInt(t%10, 10)
	}
	return s
}

// Package gauge is the one place that decides how a context percentage is
// written and coloured, so the statusLine and every shell's prompt segment
// show the same number in the same colour for the same session.
package gauge

import (
	"math"
	"strconv"
	"strings"
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

// Tokens formats a token count compactly: 950, 12k, 1.2M. By strconv, as
// fmt's %.1f and %d would write it: the statusLine draws two on every
// render, and fmt's first use allocates its printer.
func Tokens(n int64) string {
	switch {
	case n >= 1_000_000:
		s := strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + "M"
	case n >= 10_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n >= 1000:
		s := strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + "k"
	}
	return strconv.FormatInt(n, 10)
}

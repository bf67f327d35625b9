package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/table"
	"github.com/tether-dev/tether/internal/termsafe"
)

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// cell makes s safe and short for a table cell: no tabs or newlines, no
// terminal controls (termsafe), at most max terminal cells.
func cell(s string, max int) string {
	if len(s) <= max && plainASCII(s) {
		// Nothing to collapse, escape or cut (one byte, one cell): a
		// warm list of 10,000 sessions spent ~15 ms of CPU here.
		return s
	}
	if p, ok := strings.CutSuffix(s, "…"); ok && plainASCII(p) && table.Width(s) <= max {
		// A title the catalog cut: as above, with the ellipsis (neither
		// white space nor a terminal control) after it.
		return s
	}
	s = termsafe.String(strings.Join(strings.Fields(s), " "))
	if s == "" {
		return "-"
	}
	return table.Truncate(s, max)
}

// plainASCII reports whether s is non-empty printable ASCII with single
// inner spaces only, which cell leaves unchanged.
func plainASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

// relTime says how long ago t was, compactly: 45s, 12m, 3h, 5d, 2026-01-02.
// relDateAfter is the age from which relTime gives the date.
const relDateAfter = 60 * 24 * time.Hour

func relTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < 0:
		return "now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	case d < relDateAfter:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	}
	return isoDate(t.Local())
}

// isoDate is t.Format("2006-01-02") without the layout parser: a list of
// 10,000 old sessions formats 10,000 dates (~7 ms through Format).
func isoDate(t time.Time) string {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format("2006-01-02")
	}
	b := []byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + int(m)/10), byte('0' + int(m)%10), '-', byte('0' + d/10), byte('0' + d%10)}
	return string(b)
}

// parseDuration accepts Go durations plus a "d" suffix for days.
func parseDuration(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return time.Duration(days * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 30m, 24h, 7d)", s)
	}
	return d, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Package todayspend keeps one small file with today's spend, written by
// whatever counted usage last (tether usage, sessions show) and read by
// the statusLine's "today" segment, which must not count anything itself
// (it runs after every message).
package todayspend

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// File is the file under the cache directory.
func File(cacheDir string) string { return filepath.Join(cacheDir, "usage-today") }

// Spend is a day's spend as last counted.
type Spend struct {
	Date    string // YYYY-MM-DD, local
	CostUSD float64
	Tokens  int64
	// Counted is when it was counted.
	Counted time.Time
}

// Write keeps s at path (atomically, 0600).
func Write(path string, s Spend) error {
	line := fmt.Sprintf("%s %s %d %d\n", s.Date, strconv.FormatFloat(s.CostUSD, 'f', -1, 64), s.Tokens, s.Counted.Unix())
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, []byte(line), atomicfile.Options{Perm: 0o600})
}

// Read is the spend kept at path, when it is of date (else false: a
// count of another day says nothing of today's).
func Read(path, date string) (Spend, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 256 {
		return Spend{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != 4 || f[0] != date {
		return Spend{}, false
	}
	cost, err1 := strconv.ParseFloat(f[1], 64)
	tokens, err2 := strconv.ParseInt(f[2], 10, 64)
	at, err3 := strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || cost < 0 {
		return Spend{}, false
	}
	return Spend{Date: date, CostUSD: cost, Tokens: tokens, Counted: time.Unix(at, 0)}, true
}

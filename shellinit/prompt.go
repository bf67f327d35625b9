package shellinit

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/termsafe"
)

// Usage is what the prompt segment shows: the context use of the latest
// session of an identity root.
type Usage struct {
	Harness string
	Model   string
	Tokens  int64
	Window  int64
	Percent float64
}

// DefaultFormat is the segment's format unless --format says otherwise.
const DefaultFormat = "ctx {pct}%"

// SegmentOptions say how to draw the segment.
type SegmentOptions struct {
	// Format holds text and the placeholders {pct} {bar} {tokens} {window}
	// {model} {harness}.
	Format string
	// Shell is bash, zsh, fish or plain: how colour escapes are wrapped so
	// the shell can measure the prompt.
	Shell string
	Color bool
	// Warn and Crit are the percentages from which the segment turns
	// yellow and red.
	Warn, Crit float64
}

// Segment renders u. Values that come from a state file are stripped of
// control characters, so nothing in it can drive the terminal.
func Segment(u Usage, o SegmentOptions) string {
	format := o.Format
	if format == "" {
		format = DefaultFormat
	}
	text := strings.NewReplacer(
		"{pct}", gauge.Pct(u.Percent),
		"{bar}", Bar(u.Percent, 5),
		"{tokens}", gauge.Tokens(u.Tokens),
		"{window}", gauge.Tokens(u.Window),
		"{model}", u.Model,
		"{harness}", u.Harness,
	).Replace(format)
	text = printable(text)
	color := gauge.Thresholds{Warn: o.Warn, Crit: o.Crit}.Colour(u.Percent)
	return wrapColor(text, color, o.Shell, o.Color)
}

var ansi = map[string]string{"green": "\x1b[32m", "yellow": "\x1b[33m", "red": "\x1b[31m"}

func wrapColor(text, color, shell string, on bool) string {
	if shell == "zsh" {
		text = strings.ReplaceAll(text, "%", "%%")
		if on {
			return "%F{" + color + "}" + text + "%f"
		}
		return text
	}
	if !on {
		return text
	}
	start, end := ansi[color], "\x1b[0m"
	if shell == "bash" {
		// Readline's markers for invisible characters (\[ \] are not
		// decoded in the output of a command substitution).
		start, end = "\x01"+start+"\x02", "\x01"+end+"\x02"
	}
	return start + text + end
}

// Bar is a cells-wide gauge of pct.
func Bar(pct float64, cells int) string {
	full := int(math.Round(math.Max(0, math.Min(100, pct)) / 100 * float64(cells)))
	return strings.Repeat("▰", full) + strings.Repeat("▱", cells-full)
}

// printable turns tabs and line breaks into spaces and drops every other
// control character. It runs over every completion candidate on each TAB:
// a string with nothing to change (nearly all) is returned after one scan
// (strings.Map over each instead made a TAB after claude --resume at
// 10,000 sessions 0.34 ms slower, CPU of whole processes measured
// interleaved).
func printable(s string) string {
	if !needsPrintable(s) {
		return s
	}
	return strings.Map(printableRune, s)
}

// printableRune is printable's mapping of one rune (-1: dropped).
func printableRune(r rune) rune {
	if r == '\t' || r == '\n' || r == '\r' {
		return ' '
	}
	// Controls and bidi marks (termsafe.Unsafe) would reach the terminal
	// through the prompt or a completion menu.
	if unicode.IsControl(r) || termsafe.Unsafe(r) {
		return -1
	}
	return r
}

// needsPrintable reports whether printable would change s: a control or
// bidi character (termsafe.Unsafe covers unicode.IsControl), or invalid
// UTF-8, which strings.Map turns into U+FFFD.
func needsPrintable(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || termsafe.Unsafe(r) {
			return true
		}
		i += n
	}
	return false
}

// StampPath is the file whose mtime the shell compares with the state
// file's: one per shell process, so that one shell's refresh never hides a
// change from another.
func StampPath(cacheDir, shellPID string) (string, error) {
	if _, err := strconv.ParseUint(shellPID, 10, 32); err != nil {
		return "", fmt.Errorf("stamp id %q is not a process id", shellPID)
	}
	return filepath.Join(cacheDir, "prompt", shellPID+".stamp"), nil
}

// racyWindow is how recent a state file's mtime may be before the stamp is
// deliberately set apart from it: on a file system with coarse timestamps
// a second write within the same tick would otherwise look like no change.
const racyWindow = 2 * time.Second

// SyncStamp makes stamp describe statePath for the shell's cache: absent
// when the state file is, else carrying the state file's mtime — or a
// different one while that mtime is too recent to trust, so the shell asks
// again at the next prompt.
func SyncStamp(stamp, statePath string, now time.Time) error {
	st, err := os.Stat(statePath)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Remove(stamp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err != nil {
		return err
	}
	mtime := st.ModTime()
	if now.Sub(mtime) < racyWindow {
		mtime = mtime.Add(-time.Second)
	}
	if err := os.Chtimes(stamp, mtime, mtime); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(stamp), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(stamp, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	removeDeadStamps(filepath.Dir(stamp), filepath.Base(stamp))
	return os.Chtimes(stamp, mtime, mtime)
}

// removeDeadStamps deletes the stamps of shells that have exited. It runs
// only when a new shell makes its first stamp.
func removeDeadStamps(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := strings.CutSuffix(e.Name(), ".stamp")
		if !ok || e.Name() == keep {
			continue
		}
		n, err := strconv.Atoi(pid)
		if err != nil || n <= 0 {
			continue
		}
		if syscall.Kill(n, 0) == syscall.ESRCH {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

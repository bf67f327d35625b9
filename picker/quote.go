package picker

import (
	"fmt"
	"strings"

	"github.com/tether-dev/tether/internal/shquote"
)

// Quoter quotes one word for a shell.
type Quoter func(string) string

// QuoterFor returns the quoting of shell: fish's for "fish", else POSIX
// (bash, zsh, sh: $'…' is POSIX since 2024). Words holding control characters are spelled with
// escapes ($'\x1b' in bash and zsh, \x1b in fish), so the printed line
// never carries a raw control character to the terminal, and the shell
// still gets the exact bytes.
func QuoterFor(shell string) Quoter {
	if shell == "fish" {
		return fishQuote
	}
	return ansiCQuote
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// ansiCQuote is bash/zsh $'…' quoting when needed.
func ansiCQuote(s string) string {
	if !hasControl(s) {
		return shquote.Quote(s)
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// fishQuote single-quotes for fish (only \\ and \' are escapes inside),
// with control characters as \xHH between quoted pieces.
func fishQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s // nothing fish treats specially
	}
	var b strings.Builder
	piece := func(p string) {
		p = strings.ReplaceAll(p, `\`, `\\`)
		b.WriteString("'" + strings.ReplaceAll(p, "'", `\'`) + "'")
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			if i > start {
				piece(s[start:i])
			}
			fmt.Fprintf(&b, `\x%02x`, c)
			start = i + 1
		}
	}
	if start < len(s) || s == "" {
		piece(s[start:])
	}
	return b.String()
}

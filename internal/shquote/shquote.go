// Package shquote quotes words for POSIX shells (sh, bash, zsh), for the
// commands tether prints or writes into other programs' settings.
package shquote

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tether-dev/tether/internal/termsafe"
)

// Quote returns s as one shell word: bare when it is made only of
// characters no shell treats specially, else in single quotes, with an
// embedded single quote spelled '\”. Newlines, $, backticks and globs are
// literal inside single quotes.
func Quote(s string) string {
	// A leading = is zsh's command lookup (=ls is /bin/ls).
	if s != "" && s[0] != '=' && strings.IndexFunc(s, unsafe) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

func unsafe(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
}

// Printable is Quote for shell code printed on a terminal for a person to
// run (resume --print): a word holding a control character, a byte that
// is not UTF-8 or a bidi mark is written in ANSI-C quoting, $'…' with
// \xHH escapes, so the line shows no raw control and still means the
// same bytes in bash, zsh and ksh ($'…' is not POSIX sh; dash lacks it).
// Any other word is quoted as by Quote.
//
// A newline or tab alone stays in single quotes, as Quote writes it: it
// cannot drive a terminal, and the line keeps working in POSIX sh.
func Printable(s string) string {
	if termsafe.Safe(strings.NewReplacer("\n", "", "\t", "").Replace(s)) {
		return Quote(s)
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case (r == utf8.RuneError && n == 1) || termsafe.Unsafe(r):
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// JoinPrintable is Join with Printable.
func JoinPrintable(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Printable(w)
	}
	return strings.Join(q, " ")
}

// FishPrintable is Printable for fish: single quotes (inside which only
// \\ and \' are escapes), bare when nothing in s is special to fish, and
// every rune that could drive a terminal (or byte that is not UTF-8)
// written as \xHH between the quoted pieces — fish reads \xHH as that
// byte, so the line still means the same bytes.
func FishPrintable(s string) string {
	if s != "" && strings.IndexFunc(s, unsafe) < 0 && !strings.ContainsRune(s, '%') {
		return s
	}
	var b strings.Builder
	piece := func(p string) {
		p = strings.ReplaceAll(p, `\`, `\\`)
		b.WriteString("'" + strings.ReplaceAll(p, "'", `\'`) + "'")
	}
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (termsafe.Unsafe(r) && r != '\n' && r != '\t') {
			if i > start {
				piece(s[start:i])
			}
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) || s == "" {
		piece(s[start:])
	}
	return b.String()
}

// Package shquote quotes words for POSIX shells (sh, bash, zsh), for the
// commands tether prints or writes into other programs' settings.
package shquote

import "strings"

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

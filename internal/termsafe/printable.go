package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable turns tabs and line breaks into spaces and drops every other
// control character. It runs over every completion candidate on each TAB:
// a string with nothing to change (nearly all) is returned after one scan.
func Printable(s string) string {
	if !needsPrintable(s) {
		return s
	}
	return strings.Map(printableRune, s)
}

// printableRune is Printable's mapping of one rune (-1: dropped).
func printableRune(r rune) rune {
	if r == '\t' || r == '\n' || r == '\r' {
		return ' '
	}
	// Controls and bidi marks (Unsafe) would reach the terminal
	// through the prompt or a completion menu.
	if unicode.IsControl(r) || Unsafe(r) {
		return -1
	}
	return r
}

// needsPrintable reports whether Printable would change s: a control or
// bidi character (Unsafe covers unicode.IsControl), or invalid
// UTF-8, which strings.Map turns into U+FFFD.
func needsPrintable(s string) bool {
	for i := 0; i < len(s); {
		if i+8 <= len(s) && printableASCII8(s[i:i+8]) {
			i += 8 // a TAB checks up to 500 descriptions, twice
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			return true
		}
		i += n
	}
	return false
}

// printableASCII8 reports whether the 8 bytes of s are all printable
// ASCII (0x20-0x7e), a word at a time: no byte below 0x20, none with the
// high bit, none equal to 0x7f (the bit tricks have no false positives).
func printableASCII8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	del := w ^ 0x7f*ones
	return ((w-0x20*ones)&^w|w|(del-ones)&^del)&highs == 0
}

// Package termsafe makes untrusted text (session titles, prompts,
// directory names, branch names, model names from a payload) safe to print
// on a terminal. A title holding ESC ] 0 ; … BEL would set the window
// title, ESC ] 52 ; … write the clipboard, ESC [ 2 J clear the screen, and
// a C1 byte such as 0x9b is CSI on terminals that honour 8-bit controls;
// bidi overrides reorder what is shown so that it reads differently from
// what it is.
//
// Escaped, as visible Go-style escapes:
//   - C0 controls U+0000–U+001F and DEL U+007F (\x1b, \n, \t, …);
//   - C1 controls U+0080–U+009F (\u009b);
//   - bytes that are not UTF-8 (a raw 0x9b byte: \x9b);
//   - bidi embeddings, overrides and isolates U+202A–U+202E and
//     U+2066–U+2069, and the invisible marks U+200E, U+200F and U+061C
//     (LRM, RLM, ALM): they carry no text of their own and only change
//     how the text around them is displayed;
//   - the line and paragraph separators U+2028 and U+2029.
//
// Everything else, including every printable non-ASCII character, passes
// unchanged. Machine output (--json) is never passed through this package.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// String returns s with every control escaped, for one-line fields (a
// newline or tab is escaped too).
func String(s string) string { return escape(s, false) }

// Text is String for multi-line text: newlines and tabs are kept.
func Text(s string) string { return escape(s, true) }

// Safe reports whether s needs no escaping for a one-line field.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, multiline bool) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Unsafe reports whether r is a control or a display-reordering mark.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

package picker

import (
	"strings"
	"unicode/utf8"
)

// clean makes hostile text (titles, prompts, directory names) safe to draw:
// it is one line, valid UTF-8, and holds no C0/C1 control or bidi override
// characters that could move the cursor, change colours or reorder text.
//
// TODO(termsafe): replace with internal/termsafe once it lands (issue 13).
func clean(s string) string {
	if !needsClean(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// needsClean is the fast path: most text is printable ASCII.
func needsClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			if c >= 0x80 {
				return !utf8.ValidString(s) || hasUnsafeRune(s[i:])
			}
			return true
		}
	}
	return false
}

func hasUnsafeRune(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidi(r) {
			return true
		}
	}
	return false
}

// isBidi reports the explicit directional formatting characters.
func isBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

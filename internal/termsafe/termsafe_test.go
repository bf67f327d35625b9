package termsafe

import "testing"

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":                  "plain title",
		"é 日本語 ✓":                      "é 日本語 ✓",
		"\x1b]0;pwned\x07":             `\x1b]0;pwned\x07`,
		"\x1b]52;c;cHduZWQ=\x07":       `\x1b]52;c;cHduZWQ=\x07`,
		"\x1b[2J":                      `\x1b[2J`,
		"raw \x9b byte":                `raw \x9b byte`,
		"c1 \u009b rune":               `c1 \u009b rune`,
		"abc\u202edcba":                `abc\u202edcba`,
		"\u2066iso\u2069 \u200e\u200f": `\u2066iso\u2069 \u200e\u200f`,
		"two\nlines\tand\r":            `two\nlines\tand\r`,
		"del\x7f nul\x00":              `del\x7f nul\x00`,
		"sep\u2028":                    `sep\u2028`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Text("a\n\tb\x1b"); got != "a\n\tb\\x1b" {
		t.Errorf("Text kept/escaped wrong: %q", got)
	}
}

// No output of String holds a byte a terminal interprets.
func FuzzString(f *testing.F) {
	f.Add("\x1b]0;x\x07\x9b\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !Safe(out) {
			t.Errorf("String(%q) = %q is not safe", s, out)
		}
	})
}

package termsafe

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Printable's fast path (nothing to change: return s) must agree with the
// full mapping for every input: each rune of the BMP's first part alone
// and inside text, invalid UTF-8, and hostile titles.
func TestPrintableFastPathAgrees(t *testing.T) {
	full := func(s string) string { return strings.Map(printableRune, s) }
	inputs := []string{"", "plain title", "fix: the login bug (café) 🚀", "a\tb\nc\rd", "\x1b[31mred\x1b[0m",
		"bad \xff utf8", "\xc3", "rtl \u202e override", "nbsp\u00a0x", "c1 \u0085 next line", "\u2028sep\u2029"}
	for r := rune(0); r < 0x3000; r++ {
		inputs = append(inputs, string(r), "x"+string(r)+"y")
	}
	for _, s := range inputs {
		if got, want := Printable(s), full(s); got != want {
			t.Errorf("Printable(%q) = %q, want %q", s, got, want)
		}
	}
}

// Printable's one-scan check returns s unchanged exactly when the
// mapping would not change it, on random mixes of hostile pieces.
func TestPrintableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", " ", "~", "0", "\x1f", "\x7f", "\x00", "\t", "\x80", "\xff", "é", "\u202e", "\u2066", "日本", "\xe2\x80"}
	for n := 0; n < 50000; n++ {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			if r.IntN(4) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteByte(byte(0x20 + r.IntN(0x5f)))
			}
		}
		s := b.String()
		if got, want := Printable(s), strings.Map(printableRune, s); got != want {
			t.Fatalf("Printable(%q) = %q, want %q", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		s := strings.Repeat("x", c%9) + string([]byte{byte(c)}) + strings.Repeat("y", 16)
		if got, want := Printable(s), strings.Map(printableRune, s); got != want {
			t.Fatalf("byte %#x: %q, want %q", c, got, want)
		}
	}
}

package jsonl

import (
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var validCases = []string{
	``, ` `, `{}`, ` {"a":1} `, `{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `[1,2,]`, `[`, `]`, `[1 2]`,
	`"abc"`, `"a\"b"`, `"a\\"`, `"a\q"`, `"\u00e9"`, `"\u00g9"`, `"\u00"`, "\"a\x01b\"", "\"tab\there\"",
	`"` + strings.Repeat("x", 100) + `"`, `"` + strings.Repeat("x", 17) + `\n` + strings.Repeat("y", 9) + `"`,
	`"` + strings.Repeat("x", 23), `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1e+5`, `1E-2`, `-1.5e10`, `.5`,
	`true`, `tru`, `false`, `null`, `nul`, `nullx`, `{"a":[true,false,null,{"b":"c"}]}`, "{\"a\":\"é\xff\"}",
	`{"k":"v"}x`, `[[[[]]]]`, `{"a":{"b":{"c":[1,{"d":"e\/f"}]}}}`, "\t\r\n[]\n",
	// Escapes and specials at each position of an 8-byte word.
	`"1234567\n"`, `"123456\n7"`, `"1234567\u0041"`, `"12345678\`, `"1234567\"`, `"1234567\\"`, `"123456\u004"`,
	"\"1234567\x1f\"", "\"123456789abcde\x7f\"", `"1234567!"`, `"abcdefg\q12345678"`, `"abcdefgh\u00e9xyz"`,
	"\"abcdefgh\\\x01\"", `"1234567` + "\xff\x80\xc0" + `"`,
}

func TestValidMatchesGJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := Valid([]byte(c)), gjson.ValidBytes([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, gjson says %v", c, got, want)
		}
	}
}

// FuzzValid: Valid and gjson.ValidBytes agree on every input (but one
// nested deeper than maxDepth, which gjson follows until its stack ends).
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), gjson.ValidBytes(b); got != want {
			t.Errorf("Valid(%q) = %v, gjson says %v", b, got, want)
		}
	})
}

// benchLine is a 1 MiB tool_result line with an escape every escEvery bytes.
func benchLine(escEvery int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"type":"user","message":{"content":[{"type":"tool_result","content":"`)
	for sb.Len() < 1<<20 {
		sb.WriteString(strings.Repeat("x", escEvery))
		sb.WriteString(`\n`)
	}
	sb.WriteString(`"}]}}`)
	return []byte(sb.String())
}

func BenchmarkValid(b *testing.B) {
	for _, every := range []int{14, 40, 1 << 20} {
		line := benchLine(every)
		b.Run("jsonl/"+itoa(every), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for range b.N {
				if !Valid(line) {
					b.Fatal("invalid")
				}
			}
		})
		b.Run("gjson/"+itoa(every), func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for range b.N {
				if !gjson.ValidBytes(line) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// itoa names a benchmark by how often its string has an escape.
func itoa(n int) string {
	if n >= 1<<20 {
		return "none"
	}
	return strconv.Itoa(n)
}

// A line nested deeper than Valid goes is not valid (and does not crash
// it): each level was a call, and Go stops a goroutine whose stack
// passes its limit (1 GB; 8 MB here) with a fatal error, which no
// recover catches.
func TestValidDeepNesting(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(8 << 20))
	for _, open := range []string{"[", `{"a":`} {
		deep := strings.Repeat(open, 1<<20)
		if Valid([]byte(deep)) {
			t.Errorf("%q x 2^20: valid", open)
		}
	}
	ok := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	if !Valid([]byte(ok)) {
		t.Error("1,000 nested arrays: not valid")
	}
}

// ValidNested takes maxDepth levels of arrays and objects (the value
// itself is one), not one more.
func TestValidNested(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{`1`, true}, {`[]`, true}, {`[[]]`, false}, {`{"a":[1]}`, false}, {`{"a":"[[[["}`, true}, {`[1,[2]]`, false},
		{`[1,2]`, true}, {`[[`, false},
	} {
		if got := ValidNested([]byte(c.s), 1); got != c.want {
			t.Errorf("ValidNested(%q, 1) = %v, want %v", c.s, got, c.want)
		}
	}
	for _, depth := range []int{126, 127, 128} {
		s := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		if got := ValidNested([]byte(s), 127); got != (depth <= 127) {
			t.Errorf("depth %d: ValidNested(..., 127) = %v", depth, got)
		}
	}
}

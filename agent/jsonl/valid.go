package jsonl

import (
	"math/bits"
	"unsafe"
)

// Valid reports whether b is one JSON value (RFC 8259 grammar, surrounding
// white space allowed; string bytes are not checked for UTF-8), as
// gjson.ValidBytes does. A transcript line is mostly string bodies of
// tool output: those are checked eight bytes at a time, where a general
// validator looks at each byte in turn (gjson.ValidBytes in its place
// made a 64 MiB trim take 148 ms of CPU instead of 120).
func Valid(b []byte) bool { return ValidNested(b, maxDepth) }

// maxDepth is how deep Valid follows arrays and objects: each level is a
// call, and a goroutine whose stack passes Go's limit (1 GB) dies of a
// fatal error no recover catches, so a hostile line a few megabytes long
// of '[' would stop tether. No agent writes a line a thousandth as deep.
const maxDepth = 10000

// ValidNested is Valid for a value whose arrays and objects nest at most
// depth levels (the value itself is one): a reader that must reject what
// a stricter parser rejects (serde_json stops at 127) says how deep.
func ValidNested(b []byte, depth int) bool {
	w := walker{b: b, depth: depth}
	return w.whole()
}

// A Picker chooses, while Pick checks a line, the values it keeps. Pick
// asks it only about the members of the objects it chose to pick from
// (the line's, at level 0, and those it names), so the bulk of a line
// (its content strings) is checked once and read by nobody.
type Picker interface {
	// Member is asked of each member of an object picked from at level:
	// keep its value in slot (-1: not kept), and when the value is an
	// object, pick from its members at level next (-1: do not). Only a
	// slot's first value is kept (and picked from).
	Member(level int, key []byte) (slot, next int)
	// Null is told of each member, in any object, whose value is null
	// written right after the colon (key is the member's key as written,
	// escapes and all).
	Null(key []byte)
}

// Pick reports whether b is one JSON value nested at most depth levels,
// as ValidNested does, and keeps in spans the values p chose (each as
// written). When b is not valid, what spans hold means nothing.
func Pick(b []byte, depth int, p Picker, spans [][]byte) bool {
	w := walker{b: b, depth: depth, p: p, spans: spans}
	return w.whole()
}

// walker checks one value (Valid's grammar) nested at most depth levels;
// with a Picker it keeps the chosen members' values on the way.
type walker struct {
	b     []byte
	depth int // the levels left
	p     Picker
	spans [][]byte
}

func (w *walker) whole() bool {
	i := skipWS(w.b, 0)
	level := -1
	if w.p != nil {
		level = 0
	}
	i, ok := w.value(i, level)
	return ok && skipWS(w.b, i) == len(w.b)
}

// TrimSpace is b without the JSON white space (space, tab, newline,
// carriage return) around it.
func TrimSpace(b []byte) []byte {
	b = b[skipWS(b, 0):]
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value checks the value at b[i]; an object is picked from at level
// (-1: not).
func (w *walker) value(i, level int) (int, bool) {
	b := w.b
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		if w.depth == 0 {
			return i, false // nested too deep
		}
		w.depth--
		var end int
		var ok bool
		if c == '{' {
			end, ok = w.object(i+1, level)
		} else {
			end, ok = w.array(i + 1)
		}
		w.depth++
		return end, ok
	case c == '"':
		return validString(b, i+1)
	case c == '-' || c >= '0' && c <= '9':
		return validNumber(b, i)
	case c == 't':
		return validWord(b, i, "true")
	case c == 'f':
		return validWord(b, i, "false")
	case c == 'n':
		return validWord(b, i, "null")
	}
	return i, false
}

func validWord(b []byte, i int, w string) (int, bool) {
	if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
		return i + len(w), true
	}
	return i, false
}

// object checks an object from just past its '{'.
func (w *walker) object(i, level int) (int, bool) {
	b := w.b
	i = skipWS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		ks := i + 1
		var ok bool
		if i, ok = validString(b, ks); !ok {
			return i, false
		}
		key := b[ks : i-1]
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if w.p != nil && i+1 < len(b) && b[i+1] == 'n' {
			w.p.Null(key)
		}
		slot, next := -1, -1
		if level >= 0 {
			slot, next = w.p.Member(level, key)
			if slot >= 0 && w.spans[slot] != nil {
				slot, next = -1, -1 // not the first
			}
		}
		vs := skipWS(b, i+1)
		if i, ok = w.value(vs, next); !ok {
			return i, false
		}
		if slot >= 0 {
			w.spans[slot] = b[vs:i]
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return i, false
		}
	}
}

// array checks an array from just past its '['.
func (w *walker) array(i int) (int, bool) {
	b := w.b
	i = skipWS(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = w.value(i, -1); !ok {
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = skipWS(b, i+1)
		default:
			return i, false
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 flags, in the high bit of each byte, the bytes of x that are a
// control character, '"' or '\\' (SWAR "has byte less than" / "has zero
// byte" tests: a borrow can only flag a byte above a real match, so the
// lowest flag is always a real one). A control character or '"' is one
// test: x^0x02 is below 0x21 exactly for those (0x22 becomes 0x20).
func special8(x uint64) uint64 {
	y := x ^ (0x02 * ones)
	lt := (y - 0x21*ones) & ^y & highs
	bs := x ^ ('\\' * ones)
	return lt | ((bs - ones) & ^bs & highs)
}

// isEscape marks the bytes that may follow a backslash, but for 'u'.
var isEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// validString checks a string from just past its opening quote. Tool
// output has an escape every 20-odd bytes (newlines, tabs, quotes), so
// the word loop steps over a simple escape itself instead of leaving for
// the byte-wise switch.
func validString(b []byte, i int) (int, bool) {
	n := len(b)
	for {
		for i+8 <= n {
			// An unaligned 8-byte load, in bounds by the loop condition:
			// binary.LittleEndian's bounds check cost 15% here.
			m := special8(*(*uint64)(unsafe.Pointer(&b[i])))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8 // the first special byte
			if b[i] == '\\' && i+1 < n && isEscape[b[i+1]] {
				i += 2
				continue
			}
			break
		}
		if i >= n {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < ' ':
			return i, false
		case c == '\\':
			i++
			if i >= n {
				return i, false
			}
			switch {
			case isEscape[b[i]]:
				i++
			case b[i] == 'u':
				if len(b)-i < 5 || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return i, false
				}
				i += 5
			default:
				return i, false
			}
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(b []byte, i int) bool { return i < len(b) && b[i] >= '0' && b[i] <= '9' }

func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	if !isDigit(b, i) {
		return i, false
	}
	if b[i] == '0' {
		i++
	} else {
		for isDigit(b, i) {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !isDigit(b, i) {
			return i, false
		}
		for isDigit(b, i) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !isDigit(b, i) {
			return i, false
		}
		for isDigit(b, i) {
			i++
		}
	}
	return i, true
}

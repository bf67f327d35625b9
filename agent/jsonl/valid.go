package jsonl

import (
	"encoding/binary"
	"math/bits"
)

// Valid reports whether b is one JSON value (RFC 8259 grammar, surrounding
// white space allowed; string bytes are not checked for UTF-8), as
// gjson.ValidBytes does. A transcript line is mostly string bodies of
// tool output: those are checked eight bytes at a time, where a general
// validator looks at each byte in turn (the trim's input check spent half
// of its CPU there).
func Valid(b []byte) bool {
	i := skipWS(b, 0)
	i, ok := validValue(b, i)
	return ok && skipWS(b, i) == len(b)
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func validValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		return validObject(b, i+1)
	case c == '[':
		return validArray(b, i+1)
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

// validObject checks an object from just past its '{'.
func validObject(b []byte, i int) (int, bool) {
	i = skipWS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = validString(b, i+1); !ok {
			return i, false
		}
		i = skipWS(b, i)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = validValue(b, skipWS(b, i+1)); !ok {
			return i, false
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

// validArray checks an array from just past its '['.
func validArray(b []byte, i int) (int, bool) {
	i = skipWS(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = validValue(b, i); !ok {
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
// control character, '"' or '\\' (SWAR "has zero byte" / "has byte less
// than" tests: a borrow can only flag a byte above a real match, so the
// lowest flag is always a real one).
func special8(x uint64) uint64 {
	ctl := (x - 0x20*ones) & ^x & highs
	q := x ^ ('"' * ones)
	bs := x ^ ('\\' * ones)
	return ctl | ((q - ones) & ^q & highs) | ((bs - ones) & ^bs & highs)
}

// validString checks a string from just past its opening quote.
func validString(b []byte, i int) (int, bool) {
	for {
		for i+8 <= len(b) {
			if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8 // the first special byte
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < ' ':
			return i, false
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
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

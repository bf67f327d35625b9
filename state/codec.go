package state

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// The session state is decoded and encoded on every hook event. Through
// encoding/json, each process first reflected over Session's fields
// (json's typeFields: 3% of a Stop hook's CPU, perf over 200 runs). The
// codec below writes the very bytes json.Marshal writes and reads the
// files tether writes itself; anything else it is not sure of - an
// unknown or differently spelt key, an escape or non-ASCII byte in a
// string, a number that is not a plain literal - goes to encoding/json,
// so the result is always json.Unmarshal's. TestCodecMatchesEncodingJSON
// holds both to that.

// decodeSession is json.Unmarshal(data, &s).
func decodeSession(data []byte) (s Session, err error) {
	err = decodeSessionInto(data, &s)
	return s, err
}

// decodeSessionInto is decodeSession into *s (zero on entry): the hot
// paths read a state file under deep frames, and a Session returned by
// value through every level is 256 bytes more of stack at each.
func decodeSessionInto(data []byte, s *Session) error {
	if decodeFastInto(data, s) {
		return nil
	}
	*s = Session{}
	return json.Unmarshal(data, s)
}

// decodeFast decodes a file in the shape encodeSession writes, or reports
// !ok for encoding/json to decide.
func decodeFast(data []byte) (s Session, ok bool) {
	if !decodeFastInto(data, &s) {
		return Session{}, false
	}
	return s, true
}

// decodeFastInto is decodeFast into *s (zero on entry; partly set when
// it reports false).
func decodeFastInto(data []byte, s *Session) bool {
	if !gjson.ValidBytes(data) {
		return false
	}
	r := gjson.ParseBytes(data)
	if !r.IsObject() {
		return false
	}
	ok := true
	r.ForEach(func(key, v gjson.Result) bool {
		ok = len(key.Raw) == len(key.Str)+2 && setField(s, key.Str, v)
		return ok
	})
	return ok
}

// setField stores v in the field named k, or reports false.
func setField(s *Session, k string, v gjson.Result) bool {
	switch k {
	case "session_id":
		return plainString(v, &s.SessionID)
	case "harness":
		return plainString(v, &s.Harness)
	case "identity_root":
		return plainString(v, &s.IdentityRoot)
	case "cwd":
		return plainString(v, &s.Cwd)
	case "transcript_path":
		return plainString(v, &s.TranscriptPath)
	case "model":
		return plainString(v, &s.Model)
	case "window_source":
		return plainString(v, &s.WindowSource)
	case "last_event":
		return plainString(v, &s.LastEvent)
	case "tokens":
		return plainInt(v, &s.Tokens)
	case "window":
		return plainInt(v, &s.Window)
	case "reported_window":
		return plainInt(v, &s.ReportedWindow)
	case "tokens_before_compact":
		return plainInt(v, &s.TokensBeforeCompact)
	case "percent":
		if v.Type != gjson.Number || !jsonNumber(v.Raw, true) {
			return false
		}
		f, err := strconv.ParseFloat(v.Raw, 64)
		s.Percent = f
		return err == nil
	case "usage_known":
		return plainBool(v, &s.UsageKnown)
	case "compact_pending":
		return plainBool(v, &s.CompactPending)
	case "ended":
		return plainBool(v, &s.Ended)
	case "started":
		return plainTime(v, &s.Started)
	case "run_started":
		return plainTime(v, &s.RunStarted)
	case "updated":
		return plainTime(v, &s.Updated)
	}
	return false
}

// plainString takes a string without escapes or non-ASCII bytes, whose
// value is its raw text between the quotes.
func plainString(v gjson.Result, dst *string) bool {
	if v.Type != gjson.String || len(v.Raw) < 2 {
		return false
	}
	raw := v.Raw[1 : len(v.Raw)-1]
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == '"' {
			return false
		}
	}
	*dst = raw
	return true
}

// plainInt takes an integer literal: digits, an optional minus sign.
func plainInt(v gjson.Result, dst *int64) bool {
	if v.Type != gjson.Number || !jsonNumber(v.Raw, false) {
		return false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	*dst = n
	return err == nil
}

func plainBool(v gjson.Result, dst *bool) bool {
	switch v.Raw {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return false
	}
	return true
}

// plainTime is what json does for a time.Time: its UnmarshalJSON, given
// a string or null.
func plainTime(v gjson.Result, dst *time.Time) bool {
	if v.Type != gjson.String && v.Type != gjson.Null {
		return false
	}
	return dst.UnmarshalJSON([]byte(v.Raw)) == nil
}

// encodeSession is json.Marshal(s), byte for byte.
func encodeSession(s Session) ([]byte, error) {
	b := make([]byte, 0, 512)
	b = appendKey(b, "session_id", true)
	b = appendString(b, s.SessionID)
	b = appendString(appendKey(b, "harness", false), s.Harness)
	b = appendString(appendKey(b, "identity_root", false), s.IdentityRoot)
	for _, f := range []struct{ k, v string }{{"cwd", s.Cwd}, {"transcript_path", s.TranscriptPath}, {"model", s.Model}} {
		if f.v != "" {
			b = appendString(appendKey(b, f.k, false), f.v)
		}
	}
	b = strconv.AppendInt(appendKey(b, "tokens", false), s.Tokens, 10)
	b = strconv.AppendInt(appendKey(b, "window", false), s.Window, 10)
	if s.WindowSource != "" {
		b = appendString(appendKey(b, "window_source", false), s.WindowSource)
	}
	if math.IsInf(s.Percent, 0) || math.IsNaN(s.Percent) {
		return json.Marshal(s) // its error
	}
	b = appendFloat(appendKey(b, "percent", false), s.Percent)
	if s.ReportedWindow != 0 {
		b = strconv.AppendInt(appendKey(b, "reported_window", false), s.ReportedWindow, 10)
	}
	b = strconv.AppendBool(appendKey(b, "usage_known", false), s.UsageKnown)
	if s.CompactPending {
		b = strconv.AppendBool(appendKey(b, "compact_pending", false), true)
	}
	if s.TokensBeforeCompact != 0 {
		b = strconv.AppendInt(appendKey(b, "tokens_before_compact", false), s.TokensBeforeCompact, 10)
	}
	b = appendString(appendKey(b, "last_event", false), s.LastEvent)
	for _, f := range []struct {
		k        string
		t        time.Time
		omitZero bool
	}{{"started", s.Started, true}, {"run_started", s.RunStarted, true}, {"updated", s.Updated, false}} {
		if f.omitZero && f.t.IsZero() {
			continue
		}
		t, err := f.t.MarshalJSON()
		if err != nil {
			return json.Marshal(s) // its error for the same value
		}
		b = append(appendKey(b, f.k, false), t...)
	}
	if s.Ended {
		b = strconv.AppendBool(appendKey(b, "ended", false), true)
	}
	return append(b, '}'), nil
}

func appendKey(b []byte, k string, first bool) []byte {
	if first {
		b = append(b, '{')
	} else {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

// appendString quotes s as json.Marshal does: plain text as is, anything
// it escapes (quotes, backslashes, controls, <, > and &, U+2028/2029,
// invalid UTF-8) through json.Marshal itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat is encoding/json's float64 encoding.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b) - start; n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b
}

// jsonNumber reports whether s is a JSON number literal (with a fraction
// or an exponent only when frac is set): what strconv would also take
// from a laxer validator ("+1", ".5", "1_0", "inf") goes to encoding/json.
func jsonNumber(s string, frac bool) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if !frac {
		return i == len(s)
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

package claude

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// KeyErrorDetails holds the API's error body on an API-error record
// (2.1.x: `400 {"type":"error","error":{…"message":"prompt is too long:
// 250000 tokens > 200000 maximum"}}`).
const KeyErrorDetails = "errorDetails"

// TooLongCount reads the prompt's tokens and the limit from a prompt-too-long
// message in either shape it takes: the Anthropic API's own ("prompt is
// too long: 212345 tokens > 200000 maximum") and Claude Code 2.1's
// rewording on the record's text ("Prompt is too long · the request is
// ~250000 tokens (limit 200000) …"). ok is false when s states no count
// (Claude Code 2.0 records only "Prompt is too long"). No regexp: the
// hot binary links this package and must not compile one.
func TooLongCount(s string) (tokens, limit int64, ok bool) {
	s = strings.ToLower(s)
	for _, shape := range [][3]string{{"prompt is too long:", "tokens >", "maximum"}, {"the request is", "tokens (limit", ")"}} {
		_, rest, found := strings.Cut(s, shape[0])
		if !found {
			continue
		}
		t, rest, tok := leadingCount(rest)
		rest, sep := strings.CutPrefix(strings.TrimSpace(rest), shape[1])
		l, rest, lok := leadingCount(rest)
		if tok && sep && lok && strings.HasPrefix(strings.TrimSpace(rest), shape[2]) && t > 0 && l > 0 {
			return t, l, true
		}
	}
	return 0, 0, false
}

// leadingCount reads "  ~1,234" off the front of s.
func leadingCount(s string) (int64, string, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "~")
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || end > 0 && (s[end] == ',' || s[end] == '_')) {
		end++
	}
	n, err := strconv.ParseInt(strings.NewReplacer(",", "", "_", "").Replace(s[:end]), 10, 64)
	return n, s[end:], err == nil
}

// Refusal is what an API-error record says of a prompt the API refused as
// too long: its tokens and the limit as the API counts them (both 0 when
// the record does not say).
type Refusal struct {
	Tokens, Limit int64
}

// TooLongRefusal reports whether line is a main-chain API-error record of
// a prompt too long, with the API's count when the record carries it (its
// errorDetails first: the API's own words; else the record's text).
func TooLongRefusal(line []byte) (Refusal, bool) {
	if _, tooLong, ok := APIError(line); !ok || !tooLong {
		return Refusal{}, false
	}
	r := gjson.ParseBytes(line)
	for _, s := range []string{r.Get(KeyErrorDetails).Str, r.Get("message.content.0.text").Str} {
		if t, l, ok := TooLongCount(s); ok {
			return Refusal{Tokens: t, Limit: l}, true
		}
	}
	return Refusal{}, true
}

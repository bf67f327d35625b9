package claude

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// KeyErrorDetails holds the API's error body on an API-error record
// (2.1.x: `400 {"type":"error","error":{…"message":"prompt is too long:
// 250000 tokens > 200000 maximum"}}`).
const KeyErrorDetails = "errorDetails"

// The shapes the API's count takes: the Anthropic API's own message
// ("prompt is too long: 212345 tokens > 200000 maximum") and Claude Code
// 2.1's rewording of it on the record's text ("Prompt is too long · the
// request is ~250000 tokens (limit 200000) …").
var (
	apiCountRe  = regexp.MustCompile(`prompt is too long:\s*~?([0-9][0-9,_]*)\s*tokens?\s*>\s*~?([0-9][0-9,_]*)`)
	textCountRe = regexp.MustCompile(`the request is\s*~?([0-9][0-9,_]*)\s*tokens?\s*\(limit\s*~?([0-9][0-9,_]*)\)`)
)

// TooLongCount reads the prompt's tokens and the limit from a prompt-too-long
// message in either shape; ok is false when s states no count (Claude Code
// 2.0 records only "Prompt is too long").
func TooLongCount(s string) (tokens, limit int64, ok bool) {
	s = strings.ToLower(s)
	for _, re := range []*regexp.Regexp{apiCountRe, textCountRe} {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		t, terr := parseCount(m[1])
		l, lerr := parseCount(m[2])
		if terr == nil && lerr == nil && t > 0 && l > 0 {
			return t, l, true
		}
	}
	return 0, 0, false
}

func parseCount(s string) (int64, error) {
	return strconv.ParseInt(strings.NewReplacer(",", "", "_", "").Replace(s), 10, 64)
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

package summarize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tether-dev/tether/catalog"
)

// MaxTitle is the longest title accepted, in characters.
const MaxTitle = 80

// maxField bounds every other field: a summary is short.
const maxField = 2000

// reply is the JSON shape asked of the provider.
type reply struct {
	Title       *string `json:"title"`
	Objective   *string `json:"objective"`
	Completed   *string `json:"completed"`
	CurrentWork *string `json:"currentWork"`
	LikelyNext  *string `json:"likelyNext"`
}

// ErrInvalidReply wraps every reason a reply is refused.
var ErrInvalidReply = errors.New("invalid summary reply")

// ParseReply validates a provider's reply: one JSON object with the five
// string fields (a ```json fence around it is tolerated), a title of 1–80
// characters. Control and bidi characters are removed, so a summary is
// safe to print. Anything else is an error and nothing is stored.
func ParseReply(text string) (catalog.Summary, error) {
	body := strings.TrimSpace(text)
	if strings.HasPrefix(body, "```") {
		body = strings.TrimPrefix(strings.TrimPrefix(body, "```json"), "```")
		body = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "```"))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	var r reply
	if err := dec.Decode(&r); err != nil {
		return catalog.Summary{}, fmt.Errorf("%w: not a JSON object (%d bytes): %v", ErrInvalidReply, len(body), err)
	}
	if dec.More() {
		return catalog.Summary{}, fmt.Errorf("%w: more than one JSON value", ErrInvalidReply)
	}
	fields := []struct {
		name string
		v    *string
	}{{"title", r.Title}, {"objective", r.Objective}, {"completed", r.Completed}, {"currentWork", r.CurrentWork}, {"likelyNext", r.LikelyNext}}
	var out [5]string
	for i, f := range fields {
		if f.v == nil {
			return catalog.Summary{}, fmt.Errorf("%w: no string %q", ErrInvalidReply, f.name)
		}
		out[i] = Clean(*f.v)
		if utf8.RuneCountInString(out[i]) > maxField {
			return catalog.Summary{}, fmt.Errorf("%w: %s longer than %d characters", ErrInvalidReply, f.name, maxField)
		}
	}
	out[0] = strings.Join(strings.Fields(out[0]), " ")
	if n := utf8.RuneCountInString(out[0]); n == 0 || n > MaxTitle {
		return catalog.Summary{}, fmt.Errorf("%w: title has %d characters (want 1-%d)", ErrInvalidReply, n, MaxTitle)
	}
	return catalog.Summary{Title: out[0], Objective: out[1], Completed: out[2], CurrentWork: out[3], LikelyNext: out[4]}, nil
}

// Clean removes control characters (but newlines and tabs), C1 controls
// and bidi overrides, and trims space.
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

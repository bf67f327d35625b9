package picker

import (
	"strings"

	"github.com/tether-dev/tether/internal/termsafe"
)

// clean makes hostile text (titles, prompts, directory names) safe to draw
// on one line: runs of white space (newlines included) become one space,
// and every control, bidi override or invalid byte left is escaped by
// termsafe, the one escaping rule of every human output.
func clean(s string) string {
	if termsafe.Safe(s) && !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return termsafe.String(strings.Join(strings.Fields(s), " "))
}

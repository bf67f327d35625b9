package picker

import (
	"strings"

	"github.com/tether-dev/tether/internal/termsafe"
)

// clean makes hostile text (titles, prompts, directory names) safe to draw
// on one line: runs of white space (newlines included) become one space,
// and every control, bidi override or invalid byte left is escaped by
// termsafe, the one escaping rule of every human output. Text that needs
// neither (tabs and newlines are controls: Safe refuses them) is returned
// as is; printable ASCII, most of it, is told by one pass over the bytes.
func clean(s string) string {
	if printableASCII(s) || termsafe.Safe(s) {
		return s
	}
	return termsafe.String(strings.Join(strings.Fields(s), " "))
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

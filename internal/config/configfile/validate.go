package configfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tether-dev/tether/internal/config"
)

func validatePrompt(p config.Prompt) error {
	if strings.ContainsAny(p.Format, "\n\r") {
		return fmt.Errorf("prompt.format: must be one line")
	}
	if p.Warn < 0 || p.Crit < 0 || p.Warn > p.Crit {
		return fmt.Errorf("prompt.warn and prompt.crit: need 0 <= warn <= crit, got %v and %v", p.Warn, p.Crit)
	}
	return nil
}

func validateStatusLine(s config.StatusLine) error {
	for _, name := range s.Segments {
		if !slices.Contains(config.StatuslineSegments, name) {
			return fmt.Errorf("statusline.segments: %q is not one of %v", name, config.StatuslineSegments)
		}
	}
	return nil
}

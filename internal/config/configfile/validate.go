package configfile

import (
	"fmt"
	"regexp"
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

func validateCatalog(c config.Catalog) error {
	if !slices.Equal(c.WorkRefs, config.Default().Catalog.WorkRefs) {
		if err := validateWorkRefs(c.WorkRefs); err != nil {
			return err
		}
	}
	if _, err := config.ResolveColumns(c.Columns); err != nil {
		return fmt.Errorf("catalog.columns: %w", err)
	}
	return nil
}

// validateWorkRefs compiles each pattern the file set (the defaults are
// known good: not compiled at every start of tether-hot, ~20 µs each).
func validateWorkRefs(rules []config.WorkRefRule) error {
	for i, r := range rules {
		if r.Name == "" {
			return fmt.Errorf("catalog.work_refs[%d]: name is empty", i)
		}
		if _, err := regexp.Compile(r.Pattern); err != nil || r.Pattern == "" {
			return fmt.Errorf("catalog.work_refs[%d] (%s): invalid pattern %q", i, r.Name, r.Pattern)
		}
	}
	return nil
}

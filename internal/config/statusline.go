package config

import (
	"fmt"
	"slices"
)

// StatuslineSegments are the segment names `tether statusline` draws.
var StatuslineSegments = []string{"model", "context", "branch", "cost"}

func (s StatusLine) validate() error {
	for _, name := range s.Segments {
		if !slices.Contains(StatuslineSegments, name) {
			return fmt.Errorf("statusline.segments: %q is not one of %v", name, StatuslineSegments)
		}
	}
	return nil
}

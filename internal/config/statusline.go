package config

import (
	"fmt"
	"slices"
)

// StatuslineSegments are the segment names `tether statusline` draws.
var StatuslineSegments = []string{"model", "context", "branch", "cost"}

// Statusline configures the statusLine command.
type Statusline struct {
	// Segments are drawn in this order, joined by " · ". Empty: model and
	// context.
	Segments []string `toml:"segments"`
}

func (s Statusline) validate() error {
	for _, name := range s.Segments {
		if !slices.Contains(StatuslineSegments, name) {
			return fmt.Errorf("statusline.segments: %q is not one of %v", name, StatuslineSegments)
		}
	}
	return nil
}

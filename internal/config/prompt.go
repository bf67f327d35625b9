package config

import (
	"fmt"
	"strings"
)

// Prompt configures the shell prompt segment (`tether prompt`).
type Prompt struct {
	// Format is the segment's text with placeholders {pct} {bar} {tokens}
	// {window} {model} {harness}.
	Format string `toml:"format"`
	// Warn and Crit are the context percentages from which the segment is
	// yellow and red.
	Warn float64 `toml:"warn"`
	Crit float64 `toml:"crit"`
}

// DefaultPrompt is the segment's default look: "ctx 62%", yellow from 60%,
// red from 80%.
func DefaultPrompt() Prompt { return Prompt{Format: "ctx {pct}%", Warn: 60, Crit: 80} }

func (p Prompt) validate() error {
	if strings.ContainsAny(p.Format, "\n\r") {
		return fmt.Errorf("prompt.format: must be one line")
	}
	if p.Warn < 0 || p.Crit < 0 || p.Warn > p.Crit {
		return fmt.Errorf("prompt.warn and prompt.crit: need 0 <= warn <= crit, got %v and %v", p.Warn, p.Crit)
	}
	return nil
}

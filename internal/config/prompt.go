package config

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

package shellinit

import "strings"

// Fish is fish 3.1 or newer.
type Fish struct{}

func (Fish) Name() string   { return "fish" }
func (Fish) RCFile() string { return "~/.config/fish/config.fish" }
func (Fish) file() string   { return "fish.fish" }
func (Fish) EvalLine(flags string) string {
	return "tether init fish" + flags + " | source"
}

// Quote single-quotes s for fish, where inside single quotes only \\ and
// \' are escapes.
func (Fish) Quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

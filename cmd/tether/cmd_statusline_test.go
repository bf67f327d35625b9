package main

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/config"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/state"
)

// The statusLine and every shell's prompt segment show the same number in
// the same colour for the same state (issue 14 item 15).
func TestStatusLineAndPromptAgree(t *testing.T) {
	p := config.DefaultPrompt()
	for _, c := range []struct {
		pct        float64
		text, ansi string
	}{
		{0.1136, "0.1%", "\x1b[32m"},
		{55, "55%", "\x1b[32m"},
		{62, "62%", "\x1b[33m"},
		{85, "85%", "\x1b[31m"},
	} {
		st := state.Session{UsageKnown: true, Percent: c.pct, Tokens: 1136, Window: 1_000_000}
		line := hooks.RenderStatusLine(agent.StatusInput{ModelName: "Opus"}, st, hooks.StatusOptions{Color: true, Thresholds: hot.PromptThresholds(p)})
		if !strings.Contains(line, c.text) || !strings.Contains(line, c.ansi) {
			t.Errorf("statusLine at %v%%: %q, want %q in %q", c.pct, line, c.text, c.ansi)
		}
		for _, sh := range []string{"bash", "fish"} {
			seg := shellinit.Segment(shellinit.Usage{Percent: c.pct}, shellinit.SegmentOptions{Shell: sh, Color: true, Warn: p.Warn, Crit: p.Crit})
			if !strings.Contains(seg, "ctx "+c.text) || !strings.Contains(seg, c.ansi) {
				t.Errorf("%s prompt at %v%%: %q, want %q in %q", sh, c.pct, seg, c.text, c.ansi)
			}
		}
	}
}

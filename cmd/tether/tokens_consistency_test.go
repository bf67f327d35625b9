package main

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/state"
)

// The statusLine, the prompt segment and show (whose text the picker's
// preview shows) write the same token count the same way.
func TestOneTokenFormatter(t *testing.T) {
	want := map[int64]string{999: "999", 1500: "1.5k", 12_600: "13k", 999_999: "1M", 1_000_000: "1M"}
	const window = 2_000_000
	for n, w := range want {
		pct := float64(n) / window * 100
		status := hooks.RenderStatusLine(agent.StatusInput{}, state.Session{UsageKnown: true, Tokens: n, Window: window, Percent: pct},
			hooks.StatusOptions{Segments: []string{hooks.SegContext}})
		prompt := shellinit.Segment(shellinit.Usage{Tokens: n, Window: window, Percent: pct}, shellinit.SegmentOptions{Format: "{tokens}/{window}"})
		show := (&catalog.ContextUsage{Tokens: n, Window: window, WindowKnown: true, Percent: pct}).Text()
		for surface, got := range map[string]string{"statusLine": status, "prompt": prompt, "show": show} {
			if !strings.Contains(got, w+"/2M") {
				t.Errorf("%d tokens: %s shows %q, want %q in it", n, surface, got, w+"/2M")
			}
		}
	}
}

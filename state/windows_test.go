package state

import (
	"testing"

	"github.com/tether-dev/tether/agent"
)

func TestWindowFileRemembersPerModel(t *testing.T) {
	f := WindowFile{Path: t.TempDir() + "/state/windows.json"}
	if f.Window("claude-opus-5-1") != 0 {
		t.Fatal("empty file remembers a window")
	}
	if err := f.Remember("claude-opus-5-1", 1_000_000); err != nil {
		t.Fatal(err)
	}
	w := agent.Windows{Remembered: f.Cached(), Configured: map[string]int64{"claude-opus": 300_000}}
	if got, src := w.For("claude-opus-5-1", 0, 0); got != 1_000_000 || src != agent.SourceStatusline {
		t.Errorf("remembered: %d %s", got, src)
	}
	if got, src := w.For("claude-opus-4-1", 0, 0); got != 300_000 || src != agent.SourceConfig {
		t.Errorf("other model: %d %s", got, src)
	}
	// claude-opus-5-1 has no observed window: the default, not 1M.
	if got, src := (agent.Windows{}).For("claude-opus-5-1", 0, 0); got != agent.DefaultWindow || src != agent.SourceDefault || agent.Known(src) {
		t.Errorf("claude-opus-5-1: %d %s", got, src)
	}
}

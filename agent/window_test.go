package agent

import "testing"

func TestWindowPrecedence(t *testing.T) {
	cfg := map[string]int64{"claude-sonnet": 500_000}
	for _, c := range []struct {
		reported, recorded int64
		model              string
		want               int64
		src                string
	}{
		{1_000_000, 0, "claude-sonnet-4-5", 1_000_000, "statusline"},
		{0, 258400, "fake-model", 258400, "transcript"},
		{0, 0, "claude-sonnet-4-5", 500_000, "config"},
		{0, 0, "claude-opus-5-5", 1_000_000, "model"},
		{0, 0, "claude-haiku-4-5[1m]", 1_000_000, "model"},
		{0, 0, "", DefaultWindow, "default"},
	} {
		if w, src := (Windows{Configured: cfg}).For(c.model, c.reported, c.recorded); w != c.want || src != c.src {
			t.Errorf("%+v: got %d %s", c, w, src)
		}
	}
}

func TestWindowFileRemembersPerModel(t *testing.T) {
	f := WindowFile{Path: t.TempDir() + "/state/windows.json"}
	if f.Window("claude-opus-5-1") != 0 {
		t.Fatal("empty file remembers a window")
	}
	if err := f.Remember("claude-opus-5-1", 1_000_000); err != nil {
		t.Fatal(err)
	}
	w := Windows{Remembered: f.Cached(), Configured: map[string]int64{"claude-opus": 300_000}}
	if got, src := w.For("claude-opus-5-1", 0, 0); got != 1_000_000 || src != SourceStatusline {
		t.Errorf("remembered: %d %s", got, src)
	}
	if got, src := w.For("claude-opus-4-1", 0, 0); got != 300_000 || src != SourceConfig {
		t.Errorf("other model: %d %s", got, src)
	}
	// claude-opus-5-1 has no observed window: the default, not 1M.
	if got, src := (Windows{}).For("claude-opus-5-1", 0, 0); got != DefaultWindow || src != SourceDefault || Known(src) {
		t.Errorf("claude-opus-5-1: %d %s", got, src)
	}
}

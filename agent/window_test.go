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

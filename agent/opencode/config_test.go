package opencode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/opencode"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A model's window is the limit.context of the config that OpenCode's
// merge lets win: the project's over $OPENCODE_CONFIG over the global
// files, a nearer project directory over its parent; then models.json;
// JSONC comments and trailing commas are read.
func TestLimitsWindow(t *testing.T) {
	root := t.TempDir()
	cfg, cache, proj := filepath.Join(root, "config"), filepath.Join(root, "cache"), filepath.Join(root, "proj")
	// The sample's own provider (produce.sh) in the global config.
	write(t, filepath.Join(cfg, "opencode.json"), `{"provider":{"fake":{"npm":"@ai-sdk/anthropic",
		"models":{"fake-model":{"tool_call":true,"limit":{"context":200000,"output":8192}},
		"big.v2":{"limit":{"context":300000}}}}}}`)
	write(t, filepath.Join(cfg, "opencode.jsonc"), `{
		// the user's JSONC file, merged after opencode.json
		"provider": {"fake": {"models": {"small": {"limit": {"context": 32000, /* tokens */ "output": 4096,},},},},},
	}`)
	write(t, filepath.Join(cache, "models.json"), `{"anthropic":{"id":"anthropic","models":{"claude-x":{"limit":{"context":1000000,"output":64000}}}},
		"fake":{"models":{"fake-model":{"limit":{"context":5}}}}}`)
	write(t, filepath.Join(proj, "opencode.json"), `{"provider":{"fake":{"models":{"small":{"limit":{"context":64000}}}}}}`)
	write(t, filepath.Join(proj, "sub", ".opencode", "opencode.jsonc"), `{"provider":{"fake":{"models":{"small":{"limit":{"context":128000}}}}}}`)
	l := &opencode.Limits{ConfigDir: cfg, CacheDir: cache}
	for _, c := range []struct {
		provider, model, dir, root string
		want                       int64
	}{
		{"fake", "fake-model", "", "", 200000},                      // config beats models.json
		{"fake", "big.v2", "", "", 300000},                          // a dot in the id
		{"fake", "small", "", "", 32000},                            // the JSONC file
		{"fake", "small", proj, proj, 64000},                        // the project's
		{"fake", "small", filepath.Join(proj, "sub"), proj, 128000}, // the nearer directory's
		{"fake", "small", filepath.Join(proj, "other"), proj, 64000},
		{"anthropic", "claude-x", proj, proj, 1000000}, // models.json
		{"anthropic", "none", "", "", 0},
		{"", "", "", "", 0},
	} {
		if got := l.Window(c.provider, c.model, c.dir, c.root); got != c.want {
			t.Errorf("Window(%q, %q, %q): %d, want %d", c.provider, c.model, c.dir, got, c.want)
		}
	}
	// $OPENCODE_CONFIG is merged after the global files.
	write(t, filepath.Join(root, "custom.json"), `{"provider":{"fake":{"models":{"fake-model":{"limit":{"context":100000}}}}}}`)
	l = &opencode.Limits{ConfigDir: cfg, ConfigFile: filepath.Join(root, "custom.json")}
	if got := l.Window("fake", "fake-model", "", ""); got != 100000 {
		t.Errorf("OPENCODE_CONFIG: %d", got)
	}
	// A broken file is no window, not a failure.
	write(t, filepath.Join(cfg, "opencode.jsonc"), `{"provider": `)
	if got := (&opencode.Limits{ConfigDir: cfg}).Window("fake", "small", "", ""); got != 0 {
		t.Errorf("broken file: %d", got)
	}
	var none *opencode.Limits
	if none.Window("fake", "fake-model", "", "") != 0 {
		t.Error("nil Limits knows a window")
	}
}

func TestStripJSONC(t *testing.T) {
	in := `{"a": "x // not a comment, /* nor this */", // comment
	"b": [1, 2,], /* block
	comment */ "c": "\"q\",}" ,}`
	got := opencode.StripJSONC([]byte(in))
	if len(got) != len(in) || !gjson.ValidBytes(got) {
		t.Fatalf("not JSON of the same length:\n%s", got)
	}
	d := gjson.ParseBytes(got)
	if d.Get("a").String() != "x // not a comment, /* nor this */" || d.Get("b.#").Int() != 2 || d.Get("c").String() != `"q",}` {
		t.Errorf("parsed: %s", got)
	}
}

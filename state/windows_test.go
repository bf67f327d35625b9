package state

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

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

// The cached memory remembers through the same read: a new window is
// written to the file and seen by the next lookup, an unchanged one
// leaves the file alone.
func TestCachedWindowsRemember(t *testing.T) {
	f := WindowFile{Path: t.TempDir() + "/state/windows.json"}
	if err := f.Remember("claude-opus-5-1", 1_000_000); err != nil {
		t.Fatal(err)
	}
	c := f.Cached()
	if err := c.Remember("claude-sonnet-5", 200_000); err != nil {
		t.Fatal(err)
	}
	if c.Window("claude-sonnet-5") != 200_000 || c.Window("claude-opus-5-1") != 1_000_000 {
		t.Errorf("cached lookups: %d %d", c.Window("claude-sonnet-5"), c.Window("claude-opus-5-1"))
	}
	if f.Window("claude-sonnet-5") != 200_000 || f.Window("claude-opus-5-1") != 1_000_000 {
		t.Errorf("file: %d %d", f.Window("claude-sonnet-5"), f.Window("claude-opus-5-1"))
	}
	st, _ := os.Stat(f.Path)
	os.Chtimes(f.Path, st.ModTime().Add(-time.Hour), st.ModTime().Add(-time.Hour))
	if err := f.Cached().Remember("claude-sonnet-5", 200_000); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(f.Path); !st2.ModTime().Equal(st.ModTime().Add(-time.Hour)) {
		t.Error("an unchanged window rewrote the file")
	}
	if err := (WindowFile{}).Cached().Remember("m", 1); err != nil {
		t.Errorf("no path: %v", err)
	}
}

// TestWindowFileReadsWhatJSONReads: the file reads as json.Unmarshal
// reads it, and a file it fails on remembers nothing (not what the failed
// decode had filled in).
func TestWindowFileReadsWhatJSONReads(t *testing.T) {
	written, _ := json.Marshal(map[string]int64{"claude-opus-5-5": 1_000_000, "claude-sonnet-5": 200_000})
	escaped, _ := json.Marshal(map[string]int64{"m<&>": -1})
	docs := []string{string(written), string(escaped), `{}`, ` {"a":1} `, `{"a":1,"a":2}`, `{"a":-0}`, `{"a":0}`, `{"a":9223372036854775807}`,
		`{"a":9223372036854775808}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":"1"}`, `{"a":null}`, `{"a":true}`, `{"a":01}`, `{"a":+1}`,
		`{"a\u0062":1}`, `{"caf\u00e9":1}`, "{\"caf\xc3\xa9\":1}", "{\"bad\xff\":1}", `{"a":1,}`, `{"a":1`, `[]`, `null`, `1`, `""`,
		`{"a":{"b":1}}`, `{"a":[1]}`, "{\"a\":1}\n", `{"a":1} {}`, ``, `{"a":1,"b":"x"}`}
	for _, doc := range docs {
		want := map[string]int64{}
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			want = map[string]int64{}
		}
		path := t.TempDir() + "/windows.json"
		os.WriteFile(path, []byte(doc), 0o600)
		if m := (WindowFile{Path: path}).load(); !reflect.DeepEqual(m, want) {
			t.Errorf("%q: load %v, encoding/json %v", doc, m, want)
		}
	}
}

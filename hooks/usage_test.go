package hooks

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tether-dev/tether/hooks/hookstest"
)

// countingOpener counts every byte read through the files it opens.
type countingOpener struct{ n atomic.Int64 }

type countingFile struct {
	*os.File
	n *atomic.Int64
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}

func (c *countingOpener) open(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return countingFile{f, &c.n}, nil
}

func assistant(id string, in, cc, cr int64, extra string) string {
	if extra == "" {
		extra = `"isSidechain":false,`
	}
	return fmt.Sprintf(`{"type":"assistant",%s"uuid":"u-%s","message":{"id":"%s","model":"claude-opus-5-5","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":5}}}`, extra, id, id, in, cc, cr)
}

func writeLines(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClaudeUsageRealTranscripts(t *testing.T) {
	for name, want := range map[string]int64{
		"claude-2.1.332-tool-session.jsonl": 106 + 1000,
		"claude-2.0.77-tool-session.jsonl":  174 + 1000,
	} {
		u, err := ClaudeUsage(nil, filepath.Join("..", "testdata", "samples", name), DefaultTail)
		if err != nil || !u.Found || u.Tokens != want {
			t.Errorf("%s: %+v %v, want %d tokens", name, u, err, want)
		}
	}
}

func TestClaudeUsageSkipsSidechainSyntheticAndStopsAtCompaction(t *testing.T) {
	p := writeLines(t,
		assistant("m1", 10, 20, 30, ""),
		assistant("m2", 1, 2, 3, `"isSidechain":true,`),
		`{"type":"assistant","isApiErrorMessage":true,"message":{"id":"e","model":"<synthetic>","usage":{"input_tokens":0}}}`,
		`{"type":"user","message":{"role":"user","content":"the word \"assistant\" in a prompt"}}`,
		`{"truncated garbage`,
	)
	u, err := ClaudeUsage(nil, p, DefaultTail)
	if err != nil || !u.Found || u.Tokens != 60 || u.MessageID != "m1" {
		t.Errorf("got %+v %v, want m1 = 60 tokens", u, err)
	}
	p = writeLines(t,
		assistant("m1", 10, 20, 30, ""),
		`{"type":"system","subtype":"compact_boundary","parentUuid":null,"compactMetadata":{"trigger":"auto","preTokens":155000}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}`,
	)
	u, err = ClaudeUsage(nil, p, DefaultTail)
	if err != nil || u.Found || !u.Compacted || u.PreTokens != 155000 {
		t.Errorf("after compaction: %+v %v", u, err)
	}
	p = writeLines(t,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":155000}}`,
		assistant("m9", 100, 0, 900, ""),
	)
	if u, _ = ClaudeUsage(nil, p, DefaultTail); !u.Found || u.Tokens != 1000 {
		t.Errorf("turn after compaction: %+v", u)
	}
}

// TestClaudeUsageReadsABoundedTail: on a 50 MB transcript the reader reads
// only its tail, and grows the tail (up to the cap) when a huge line
// follows the last usage.
func TestClaudeUsageReadsABoundedTail(t *testing.T) {
	p := hookstest.BigTranscript(t, 50<<20)
	var c countingOpener
	u, err := ClaudeUsage(c.open, p, DefaultTail)
	if err != nil || !u.Found || u.Tokens != hookstest.BigTokens {
		t.Fatalf("%+v %v", u, err)
	}
	if got := c.n.Load(); got > DefaultTail.Initial || got != u.BytesRead {
		t.Errorf("read %d bytes (reported %d) of %d; want at most %d", got, u.BytesRead, u.Size, DefaultTail.Initial)
	}

	// A 1 MiB tool result after the last usage: the tail grows to find it.
	big := `{"type":"user","toolUseResult":"` + strings.Repeat("x", 1<<20) + `"}`
	p = writeLines(t, assistant("early", 1, 1, 1, ""), assistant("last", 5, 5, 5, ""), big)
	c.n.Store(0)
	u, _ = ClaudeUsage(c.open, p, DefaultTail)
	if !u.Found || u.Tokens != 15 {
		t.Errorf("behind a big line: %+v", u)
	}
	if c.n.Load() > 2<<20+DefaultTail.Initial {
		t.Errorf("read %d bytes, more than needed", c.n.Load())
	}
	// Past the cap, the reader gives up instead of reading the file.
	c.n.Store(0)
	u, _ = ClaudeUsage(c.open, p, TailLimits{Initial: 64 << 10, Max: 512 << 10})
	if u.Found || c.n.Load() > 512<<10 {
		t.Errorf("cap: found=%v read %d", u.Found, c.n.Load())
	}
}

func TestCodexUsage(t *testing.T) {
	u, err := CodexUsage(nil, filepath.Join("..", "testdata", "samples", "codex-0.171.0-rollout-tool-resume.jsonl"), DefaultTail)
	if err != nil || !u.Found || u.Tokens != 153 || u.Window != 258400 || u.CacheRead != 50 {
		t.Errorf("%+v %v", u, err)
	}
}

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
		if w, src := Window(c.reported, c.recorded, c.model, cfg); w != c.want || src != c.src {
			t.Errorf("%+v: got %d %s", c, w, src)
		}
	}
}

func TestSelfReported(t *testing.T) {
	for text, want := range map[string]float64{
		"done [ctx: ~42%]":                   42,
		"a [ctx: ~10%] then b [ctx:~55.5 %]": 55.5,
		"[ctx: 7%]":                          7,
	} {
		if got, ok := SelfReported(text); !ok || got != want {
			t.Errorf("%q: %v %v", text, got, ok)
		}
	}
	for _, text := range []string{"", "ctx: 40%", "[ctx: ~400%]", "[ctx: ~NN%]"} {
		if _, ok := SelfReported(text); ok {
			t.Errorf("%q parsed", text)
		}
	}
}

// TestReadPayloadOpenStdin: Claude may leave stdin open after SessionEnd's
// payload; a complete object ends the read at once.
func TestReadPayloadOpenStdin(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte(`{"session_id":"s","hook_event_name":"SessionEnd"}`))
	// With hour-long limits, waiting for EOF would hang the test.
	data, err := ReadPayload(r, ReadLimits{Total: time.Hour, Idle: time.Hour, Max: 1 << 20})
	if err != nil || !strings.Contains(string(data), "SessionEnd") {
		t.Fatalf("%q %v", data, err)
	}
	// Nothing at all: the total deadline ends it.
	r2, w2 := io.Pipe()
	defer w2.Close()
	if _, err := ReadPayload(r2, ReadLimits{Total: 50 * time.Millisecond, Idle: time.Second, Max: 1 << 20}); err == nil {
		t.Error("no error for a silent stdin")
	}
	// A partial object followed by silence: the idle deadline returns it.
	r3, w3 := io.Pipe()
	defer w3.Close()
	go w3.Write([]byte(`{"session_id":`))
	if data, _ := ReadPayload(r3, ReadLimits{Total: time.Hour, Idle: 20 * time.Millisecond, Max: 1 << 20}); string(data) != `{"session_id":` {
		t.Errorf("partial: %q", data)
	}
}

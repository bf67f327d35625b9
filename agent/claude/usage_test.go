package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/testkit/claudetest"
	"github.com/tether-dev/tether/internal/testkit/testutil"
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

func (c *countingOpener) open(path string) (jsonl.File, error) {
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
		"claude-code-2.1.332/sample-tool-session.jsonl": 106 + 1000,
		"claude-code-2.0.77/sample-tool-session.jsonl":  174 + 1000,
	} {
		u, err := Usage(nil, testutil.Testdata(t, name), jsonl.DefaultTail)
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
	u, err := Usage(nil, p, jsonl.DefaultTail)
	if err != nil || !u.Found || u.Tokens != 60 || u.MessageID != "m1" {
		t.Errorf("got %+v %v, want m1 = 60 tokens", u, err)
	}
	p = writeLines(t,
		assistant("m1", 10, 20, 30, ""),
		`{"type":"system","subtype":"compact_boundary","parentUuid":null,"compactMetadata":{"trigger":"auto","preTokens":155000}}`,
		`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}`,
	)
	u, err = Usage(nil, p, jsonl.DefaultTail)
	if err != nil || u.Found || !u.Compacted || u.PreTokens != 155000 {
		t.Errorf("after compaction: %+v %v", u, err)
	}
	p = writeLines(t,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":155000}}`,
		assistant("m9", 100, 0, 900, ""),
	)
	if u, _ = Usage(nil, p, jsonl.DefaultTail); !u.Found || u.Tokens != 1000 {
		t.Errorf("turn after compaction: %+v", u)
	}
}

// TestClaudeUsageReadsABoundedTail: on a 50 MB transcript the reader reads
// only its tail, and grows the tail (up to the cap) when a huge line
// follows the last usage.
func TestClaudeUsageReadsABoundedTail(t *testing.T) {
	p := claudetest.BigTranscript(t, 50<<20)
	var c countingOpener
	u, err := Usage(c.open, p, jsonl.DefaultTail)
	if err != nil || !u.Found || u.Tokens != claudetest.BigTokens {
		t.Fatalf("%+v %v", u, err)
	}
	if got := c.n.Load(); got > jsonl.DefaultTail.Initial || got != u.BytesRead {
		t.Errorf("read %d bytes (reported %d) of %d; want at most %d", got, u.BytesRead, u.Size, jsonl.DefaultTail.Initial)
	}

	// A 1 MiB tool result after the last usage: the tail grows to find it.
	big := `{"type":"user","toolUseResult":"` + strings.Repeat("x", 1<<20) + `"}`
	p = writeLines(t, assistant("early", 1, 1, 1, ""), assistant("last", 5, 5, 5, ""), big)
	c.n.Store(0)
	u, _ = Usage(c.open, p, jsonl.DefaultTail)
	if !u.Found || u.Tokens != 15 {
		t.Errorf("behind a big line: %+v", u)
	}
	if c.n.Load() > 2<<20+jsonl.DefaultTail.Initial {
		t.Errorf("read %d bytes, more than needed", c.n.Load())
	}
	// Past the cap, the reader gives up instead of reading the file.
	c.n.Store(0)
	u, _ = Usage(c.open, p, jsonl.TailLimits{Initial: 64 << 10, Max: 512 << 10})
	if u.Found || c.n.Load() > 512<<10 {
		t.Errorf("cap: found=%v read %d", u.Found, c.n.Load())
	}
}

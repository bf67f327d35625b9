// Package claudetest generates Claude Code transcripts for tests and
// benchmarks.
package claudetest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BigTokens is the context usage of the last turn in a BigTranscript:
// input 1234 + cache creation 5000 + cache read 90000.
const BigTokens = 1234 + 5000 + 90000

// BigTranscript writes a synthetic Claude Code transcript of about size
// bytes: many turns of user prompts, tool results and assistant records
// (each with usage), the last one with BigTokens. Files are cached per
// size in the test's temp dir.
func BigTranscript(t testing.TB, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("big-%d.jsonl", size))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("lorem ipsum ", 300)
	var written int64
	for i := 0; written < size; i++ {
		n, _ := fmt.Fprintf(w, `{"type":"user","isSidechain":false,"uuid":"u%d","sessionId":"big","cwd":"/home/example/src/project","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]},"toolUseResult":{"stdout":"%s"}}`+"\n", i, i, pad, pad)
		written += int64(n)
		n, _ = fmt.Fprintf(w, `{"type":"assistant","isSidechain":false,"uuid":"a%d","sessionId":"big","message":{"id":"msg_%d","model":"claude-opus-5-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":10}}}`+"\n", i, i, i)
		written += int64(n)
	}
	fmt.Fprintf(w, `{"type":"assistant","isSidechain":false,"uuid":"last","sessionId":"big","message":{"id":"msg_last","model":"claude-opus-5-5","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":1234,"cache_creation_input_tokens":5000,"cache_read_input_tokens":90000,"output_tokens":10}}}`+"\n")
	fmt.Fprintf(w, `{"type":"last-prompt","lastPrompt":"x","sessionId":"big"}`+"\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// RawJSONString quotes s as a JSON string but leaves bytes that are not
// UTF-8 raw, as a real transcript can hold them (json.Marshal would
// replace them): hostile-input tests write such titles and directories.
func RawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package catalog

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestTextsStopsAtTheLastCompleteLine: Texts reads every kind of text
// from real transcripts, the same through a small-read reader, and does
// not consume an unterminated last line.
func TestTextsStopsAtTheLastCompleteLine(t *testing.T) {
	for name, h := range map[string]string{
		"claude-2.1.332-tool-session.jsonl":       ClaudeCode,
		"codex-0.171.0-rollout-tool-resume.jsonl": Codex,
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "samples", name))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, []byte(`{"type":"user","message":{"role":"user","content":"unfinished`)...)
		var a, c []Text
		n, err := Texts(h, bytes.NewReader(b), func(x Text) { a = append(a, Text{x.Kind, string(bytes.Clone([]byte(x.Text)))}) })
		// One byte per Read: lines cross every buffer boundary.
		m, err2 := Texts(h, iotest.OneByteReader(bytes.NewReader(b)), func(x Text) { c = append(c, Text{x.Kind, string(bytes.Clone([]byte(x.Text)))}) })
		if err != nil || err2 != nil || n != m || n != int64(bytes.LastIndexByte(b, '\n')+1) || !slices.Equal(a, c) || len(a) == 0 {
			t.Errorf("%s: %d texts %d bytes (%v), one-byte reads %d texts %d bytes (%v)", name, len(a), n, err, len(c), m, err2)
		}
		kinds := map[TextKind]bool{}
		for _, x := range a {
			kinds[x.Kind] = true
		}
		if !kinds[TextPrompt] || !kinds[TextAssistant] || !kinds[TextTool] {
			t.Errorf("%s: kinds %v", name, kinds)
		}
	}
}

// TestTextsLongLine: a record longer than the read buffer is read whole.
func TestTextsLongLine(t *testing.T) {
	long := strings.Repeat("word ", 600_000) // 3 MB
	line := `{"type":"user","sessionId":"s","cwd":"/home/example","message":{"role":"user","content":"` + long + `end"}}` + "\n"
	in := line + line
	var got []string
	n, err := Texts(ClaudeCode, strings.NewReader(in), func(x Text) { got = append(got, strings.Clone(x.Text)) })
	if err != nil || n != int64(len(in)) || len(got) != 2 || got[1] != strings.TrimSpace(long+"end") {
		t.Errorf("%d bytes of %d, %d texts, %v", n, len(in), len(got), err)
	}
}

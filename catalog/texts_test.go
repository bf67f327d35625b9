package catalog

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// TestTextsStopsAtTheLastCompleteLine: Texts reads every kind of text
// from real transcripts, the same through a small-read reader, and does
// not consume an unterminated last line.
func TestTextsStopsAtTheLastCompleteLine(t *testing.T) {
	for name, h := range map[string]string{
		"claude-code-2.1.332/sample-tool-session.jsonl":  ClaudeCode,
		"codex-0.171.0/sample-rollout-tool-resume.jsonl": Codex,
	} {
		b, err := os.ReadFile(testutil.Testdata(t, name))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, []byte(`{"type":"user","message":{"role":"user","content":"unfinished`)...)
		var a, c []Text
		n, err := Texts(h, bytes.NewReader(b), func(x Text) { a = append(a, Text{Kind: x.Kind, Text: string(bytes.Clone([]byte(x.Text)))}) })
		// One byte per Read: lines cross every buffer boundary.
		m, err2 := Texts(h, iotest.OneByteReader(bytes.NewReader(b)), func(x Text) { c = append(c, Text{Kind: x.Kind, Text: string(bytes.Clone([]byte(x.Text)))}) })
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

// Codex versions that record each prompt twice, as a response_item
// message and as an event_msg user_message (as the benchmark corpus
// does), have it indexed once; a prompt typed again in the next turn, or
// recorded only one way (Codex 0.171.0 writes only the response_item),
// is kept.
func TestTextsCodexPromptRecordedTwiceOnce(t *testing.T) {
	item := func(s string) string {
		return `{"timestamp":"2026-11-30T10:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + s + `"}]}}` + "\n"
	}
	event := func(s string) string {
		return `{"timestamp":"2026-11-30T10:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"` + s + `","images":[]}}` + "\n"
	}
	for _, c := range []struct {
		name, rollout string
		want          []string
	}{
		{"both records", item("fix the parser") + event("fix the parser"), []string{"fix the parser"}},
		{"typed again", item("continue") + event("continue") + item("continue") + event("continue"), []string{"continue", "continue"}},
		{"response item only", item("one") + item("one"), []string{"one", "one"}},
		{"event only", event("two") + event("two"), []string{"two", "two"}},
		{"different texts", item("three") + event("four"), []string{"three", "four"}},
	} {
		var got []string
		if _, err := Texts(Codex, strings.NewReader(c.rollout), func(x Text) {
			if x.Kind == TextPrompt {
				got = append(got, strings.Clone(x.Text))
			}
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: prompts %q, want %q", c.name, got, c.want)
		}
	}
}

package hooks

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// bigPayload is a PostToolUse payload whose tool_response holds n bytes of
// file content full of JSON-looking characters, with fields before and
// after it.
func bigPayload(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"session_id":"s-big","transcript_path":"/home/example/.claude/projects/p/s-big.jsonl","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/home/example/big.go"},"tool_response":{"type":"text","file":{"content":"`)
	chunk := `func f() { x := []int{1, 2}; s := \"}]\\\\\" } // \u00e9 ` + "\n"
	chunk = strings.ReplaceAll(chunk, "\n", `\n`)
	for b.Len() < n {
		b.WriteString(chunk)
	}
	b.WriteString(`","numLines":1}},"cwd":"/home/example/src/p","permission_mode":"default"}`)
	return b.Bytes()
}

// Issue 13 item 10: a payload over 8 MiB (a PostToolUse after reading a
// large file) is read in full and its fields found, without keeping the
// large values.
func TestReadPayloadLarge(t *testing.T) {
	payload := bigPayload(20 << 20)
	r, w := io.Pipe()
	go func() { w.Write(payload); w.Close() }()
	data, err := ReadPayload(r, ReadLimits{Total: time.Minute, Idle: time.Minute, Max: DefaultReadLimits.Max})
	if err != nil {
		t.Fatal(err)
	}
	// The same through a file descriptor (the hook's stdin is read with
	// poll and a growing buffer).
	fr, fw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	go func() { fw.Write(payload); fw.Close() }()
	if fdData, err := ReadPayload(fr, ReadLimits{Total: time.Minute, Idle: time.Minute, Max: DefaultReadLimits.Max}); err != nil || !bytes.Equal(fdData, data) {
		t.Errorf("from a file: %v, %d bytes, want the %d bytes read from a reader", err, len(fdData), len(data))
	}
	if len(data) > 1<<20 {
		t.Errorf("kept %d bytes of a %d-byte payload", len(data), len(payload))
	}
	p, err := ParsePayload(data, testAgents("", ""))
	if err != nil {
		t.Fatalf("parse: %v (%.200q)", err, data)
	}
	if p.Event != "PostToolUse" || p.SessionID != "s-big" || p.ToolName != "Read" || p.Cwd != "/home/example/src/p" ||
		!strings.HasSuffix(p.TranscriptPath, "s-big.jsonl") {
		t.Errorf("fields: %+v", p)
	}
	// A small payload is returned byte for byte.
	small := []byte(`{"session_id":"s","hook_event_name":"Stop","tool_response":{"a":[1,"}"]}}`)
	if data, _ := ReadPayload(bytes.NewReader(small), DefaultReadLimits); !bytes.Equal(data, small) {
		t.Errorf("small payload changed: %s", data)
	}
}

func BenchmarkReadPayload20MiB(b *testing.B) {
	payload := bigPayload(20 << 20)
	b.SetBytes(int64(len(payload)))
	for b.Loop() {
		data, err := ReadPayload(bytes.NewReader(payload), ReadLimits{Total: time.Minute, Idle: time.Minute, Max: DefaultReadLimits.Max})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ParsePayload(data, testAgents("", "")); err != nil {
			b.Fatal(err)
		}
	}
}

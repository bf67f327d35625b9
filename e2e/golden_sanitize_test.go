//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

func TestGoldenSanitizer(t *testing.T) {
	s := newSanitizerFor("/tmp/TestX123/001", "http://127.0.0.1:43210")
	in := `{"z":1,"cwd":"/tmp/TestX123/001/src/project","sessionId":"6a1c197e-b029-443e-a070-9fe19ffb5103","parentUuid":null,` +
		`"transcript_path":"/tmp/TestX123/001/.claude/projects/-tmp-TestX123-001-src-project/6a1c197e-b029-443e-a070-9fe19ffb5103.jsonl",` +
		`"timestamp":"2026-11-30T12:01:54.123Z","t2":"2026-11-30T12:01:54.123Z","durationMs":1234,"pid":"4242","tokens":77,` +
		`"html":"a<b & c>d","url":"http://127.0.0.1:43210/v1","long":"` + strings.Repeat("é", 250) + `",` +
		`"rollout":"sessions/2026/11/30/rollout-2026-11-30T12-01-54-01a22c5b-7f4c-7d50-8409-9bc6b1695bf1.jsonl","n":[true,false,1.5]}`
	out := string(s.jsonl(t, "in", []byte(in+"\n\n"+`{"again":"6a1c197e-b029-443e-a070-9fe19ffb5103"}`+"\n")))
	want := `{"z":1,"cwd":"/home/example/src/project","sessionId":"00000000-0000-4000-8000-000000000001","parentUuid":null,` +
		`"transcript_path":"/home/example/.claude/projects/-home-example-src-project/00000000-0000-4000-8000-000000000001.jsonl",` +
		`"timestamp":"2026-01-01T00:00:00.000Z","t2":"2026-01-01T00:00:01.000Z","durationMs":0,"pid":"0","tokens":77,` +
		`"html":"a<b & c>d","url":"http://127.0.0.1:PORT/v1","long":"` + strings.Repeat("é", 200) + `…[cut 50 chars]",` +
		`"rollout":"sessions/2026/01/01/rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000002.jsonl","n":[true,false,1.5]}` + "\n" +
		`{"again":"00000000-0000-4000-8000-000000000001"}` + "\n"
	if out != want {
		t.Errorf("sanitized:\n%s\nwant:\n%s", out, want)
	}
}

func TestGoldenShapes(t *testing.T) {
	old := shapeOf([]byte(`{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"content":[{"type":"text"}],"usage":{}}}
{"type":"summary","summary":"s"}
`))
	cur := shapeOf([]byte(`{"type":"user","uuid":"a","promptSource":"typed","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"content":[{"type":"text"}]}}
{"type":"ai-title","aiTitle":"t"}
`))
	diffs := strings.Join(compareShapes(old, cur), "\n")
	for _, want := range []string{
		`record kind "type=user content=string" has new keys [promptSource]`,
		`record kind "type=assistant content=[text]" lost keys [message.usage]`,
		`record kind "type=summary" is gone`,
		`new record kind "type=ai-title"`,
	} {
		if !strings.Contains(diffs, want) {
			t.Errorf("shape diff lacks %q:\n%s", want, diffs)
		}
	}
	if d := compareShapes(old, old); len(d) != 0 {
		t.Errorf("a shape differs from itself: %v", d)
	}
}

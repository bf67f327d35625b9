package claude

import (
	"testing"

	"github.com/tidwall/gjson"
)

// ParseRec takes plain string values as they are and leaves the rest to
// gjson: every field must read as gjson reads it.
func TestParseRecStringsAsGjson(t *testing.T) {
	lines := []string{
		`{"type":"user","timestamp":"2026-01-02T03:04:05Z","cwd":"/home/example/p","sessionId":"s1","version":"2.1.0","gitBranch":"main"}`,
		`{"type":"us\u0065r","cwd":"/home/example/a\"b","gitBranch":"f\\eat","lastPrompt":"line\none"}`,
		`{"type":7,"cwd":null,"sessionId":true,"version":{"a":1},"gitBranch":["x"]}`,
		`{"type":"","cwd":"é ü \u00e9","customTitle":"t\tab","aiTitle":"\ud83d\ude00"}`,
	}
	for _, l := range lines {
		r, ok := ParseRec(l)
		if !ok {
			t.Fatalf("ParseRec(%s) failed", l)
		}
		for k, got := range map[string]string{"type": r.Type, "timestamp": r.Timestamp, "cwd": r.Cwd, "sessionId": r.SessionID,
			"version": r.Version, "gitBranch": r.GitBranch, "lastPrompt": r.LastPrompt, "customTitle": r.CustomTitle, "aiTitle": r.AITitle} {
			if want := gjson.Get(l, k).Str; got != want {
				t.Errorf("%s: %s = %q, gjson reads %q", l, k, got, want)
			}
		}
	}
}

func BenchmarkParseRec(b *testing.B) {
	line := `{"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/home/example/project","sessionId":"0b7c7a4e-3a63-4b7e-9f3e-1c2d3e4f5a6b","version":"2.1.0","gitBranch":"main","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":10,"output_tokens":5}},"uuid":"u1","timestamp":"2026-01-02T03:04:05.678Z"}`
	for range b.N {
		if _, ok := ParseRec(line); !ok {
			b.Fatal("not parsed")
		}
	}
}

package claude

import (
	"bytes"
	"os"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestTooLongCount(t *testing.T) {
	for _, c := range []struct {
		in            string
		tokens, limit int64
		ok            bool
	}{
		{"prompt is too long: 212345 tokens > 200000 maximum", 212345, 200000, true},
		{`400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}`, 250000, 200000, true},
		{"Prompt is too long · the request is ~210000 tokens (limit 200000) but this conversation is only ~2501 tokens", 210000, 200000, true},
		{"Prompt is too long: 1,000,001 tokens > 1,000,000 maximum", 1000001, 1000000, true},
		{"Prompt is too long", 0, 0, false},
		{"prompt is too long: many tokens > 200000 maximum", 0, 0, false},
		{"prompt is too long: 0 tokens > 200000 maximum", 0, 0, false},
	} {
		tok, lim, ok := TooLongCount(c.in)
		if tok != c.tokens || lim != c.limit || ok != c.ok {
			t.Errorf("%q: %d, %d, %v; want %d, %d, %v", c.in, tok, lim, ok, c.tokens, c.limit, c.ok)
		}
	}
}

// The refusal records the real CLIs wrote (testdata/claude-code-*/golden-*): 2.1.332's
// carries the API's count, 2.0.77's only says too long.
func TestTooLongRefusalGolden(t *testing.T) {
	for file, want := range map[string]Refusal{
		"claude-code-2.1.332/golden-prompt-too-long.jsonl": {Tokens: 250000, Limit: 200000},
		"claude-code-2.0.77/golden-prompt-too-long.jsonl":  {},
	} {
		data, err := os.ReadFile(testutil.Testdata(t, file))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, line := range bytes.Split(data, []byte("\n")) {
			if r, ok := TooLongRefusal(line); ok {
				found = true
				if r != want {
					t.Errorf("%s: %+v, want %+v", file, r, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no refusal found", file)
		}
	}
}

package trim

import (
	"fmt"
	"strings"
	"testing"
)

// refusal appends the API-error record Claude Code 2.1.332 writes when the
// API refuses a prompt as too long (the API's count in errorDetails and in
// the text); 2.0.77's says only "Prompt is too long".
func (b *tb) refusal(tokens, limit int) string {
	text, details := "Prompt is too long", ""
	if strings.HasPrefix(b.version, "2.1") {
		text = fmt.Sprintf("Prompt is too long · the request is ~%d tokens (limit %d) but this conversation is only ~2514 tokens", tokens, limit)
		details = fmt.Sprintf(`400 {"error":{"message":"prompt is too long: %d tokens > %d maximum","type":"invalid_request_error"},"type":"error"}`, tokens, limit)
	}
	f := map[string]any{
		"message": map[string]any{"id": b.newMessage(), "type": "message", "role": "assistant", "model": "<synthetic>",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 0, "output_tokens": 0}},
		"error": "invalid_request", "isApiErrorMessage": true,
	}
	if details != "" {
		f["errorDetails"] = details
		f["apiErrorStatus"] = 400
	}
	return b.chain("assistant", f)
}

// refusedSession is a session whose last resume the API refused as too
// long while tether's own estimate is far under 60% of the window.
func refusedSession(version string, tokens, limit int) string {
	b := newTB(version)
	for i := 0; i < 6; i++ {
		b.turn(fmt.Sprintf("turn %d", i), strings.Repeat(fmt.Sprintf("line %d of a file\n", i), 300), fmt.Sprintf("Read:/p/f%d.go", i))
	}
	b.prompt("go on")
	b.refusal(tokens, limit)
	b.nonChain("last-prompt", map[string]any{"lastPrompt": "go on"})
	return b.String()
}

// TestFitCalibratesToTheAPIsRefusal: when the API has said "too long", its
// count is the truth: a fit to 60% trims although tether's estimate is
// under 60% of the window (it said "nothing to trim" before), lands under
// 60% of the API's limit as the API counts, and a second fit does not cut
// again.
func TestFitCalibratesToTheAPIsRefusal(t *testing.T) {
	const window = 200000
	for _, c := range []struct {
		version       string
		tokens, limit int
	}{{"2.1.332", 250000, 200000}, {"2.0.77", 0, 0}} {
		t.Run(c.version, func(t *testing.T) {
			path := writeSession(t, refusedSession(c.version, c.tokens, c.limit))
			rep, err := File(path, Options{Policy: PolicyFit, FitPercent: 60, Window: window}, false)
			if err != nil {
				t.Fatal(err)
			}
			if rep.TokensBefore*100 >= window*60 {
				t.Fatalf("the session is not under 60%% by tether's estimate: %d tokens", rep.TokensBefore)
			}
			if !rep.Changed || !rep.Calibrated {
				t.Fatalf("nothing trimmed: %+v", rep)
			}
			// Scaled to the API's count (a refusal without one is taken as
			// a prompt right at the window).
			tokens, limit := int64(c.tokens), int64(c.limit)
			if tokens == 0 {
				tokens, limit = window, window
			}
			if api := rep.TokensAfter * tokens / rep.TokensBefore; api > limit*60/100 {
				t.Errorf("after the trim the API would count ~%d tokens, over 60%% of its limit %d", api, limit)
			}
			if rep.APITokens != int64(c.tokens) || rep.APILimit != int64(c.limit) {
				t.Errorf("report's API count %d > %d", rep.APITokens, rep.APILimit)
			}
			out := readFile(t, path)
			if strings.Contains(out, `"isApiErrorMessage":true`) || !strings.Contains(out, `"go on"`) {
				t.Errorf("the refusal should be answered (dropped), the prompt kept:\n%s", out)
			}
			again, err := File(path, Options{Policy: PolicyFit, FitPercent: 60, Window: window}, false)
			if err != nil || again.Changed || again.Calibrated {
				t.Errorf("a second fit cut again: %+v, %v", again, err)
			}
		})
	}
}

// A refusal the session has moved on from (a turn the API accepted after
// it) calibrates nothing.
func TestFitIgnoresAnsweredRefusal(t *testing.T) {
	b := newTB("2.1.332")
	b.turn("one", strings.Repeat("x\n", 3000), "Read:/p/a.go")
	b.prompt("go on")
	b.refusal(250000, 200000)
	b.turn("two", "small")
	_, rep, err := trimString(t, b.String(), Options{Policy: PolicyFit, FitPercent: 60, Window: 200000})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed || rep.Calibrated {
		t.Errorf("trimmed by an answered refusal: %+v", rep)
	}
}

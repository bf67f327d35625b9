package claudesessions

import (
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// pickCases are usage lines of every shape the counter tells apart: each
// field of the wrong type, escaped keys, repeated keys, nulls where ccusage
// looks for them (and in strings, where it does not count them), progress
// records, broken lines.
var pickCases = []string{
	usageLine("msg_1", "req_1", 5),
	`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","message":{"id":"m","model":"claude-x","usage":{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4},"speed":"fast"}},"costUSD":0.5,"isSidechain":true}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"requestId":null}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"x":{"id":null}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"x":"\"id\":null"}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"x":"a id\":null"}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"a\"id":null}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"id" :null}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}},"id": null}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":null}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1.5,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":-1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":"1","output_tokens":2}}}`,
	`{"timestamp":1,"message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"yesterday","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":"text","usage":{"input_tokens":1}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":[1]},"message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","timestamp":"x","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timest\u0061mp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"us\u0061ge":{"input_tokens":1,"output_tokens":2},"usage":{"input_tokens":7,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":"x"}}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2,"speed":"slow"}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","version":"2.1","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","sessionId":"","message":{"model":"<synthetic>","usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","isSidechain":"yes","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","costUSD":"1","message":{"usage":{"input_tokens":1,"output_tokens":2}}}`,
	`{"type":"progress","data":{"message":{"timestamp":"2026-03-01T10:00:00Z","requestId":"r","message":{"id":"m","model":"claude-y","usage":{"input_tokens":9,"output_tokens":1}}}}}`,
	`{"type":"progress","data":{"message":{"timestamp":"2026-03-01T10:00:00Z","data":{"message":{}},"message":{"usage":{"input_tokens":9,"output_tokens":1}}}},"data":{}}`,
	`{"type":"progress","d\u0061ta":{"message":{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":9,"output_tokens":1}}}}}`,
	`{"type":"progress","data":[{"message":{}}],"message":{"usage":{"input_tokens":9}}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}}`,
	`{"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}}} x`,
	"{\"timestamp\":\"2026-03-01T10:00:00Z\",\"t\":\"a\x01\",\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}",
	` {"timestamp":"2026-03-01T10:00:00Z","message":{"usage":{"input_tokens":1,"output_tokens":2}}} `,
	`["usage":{}]`, `"\"usage\":{"`, `{"usage":{}}`,
}

// lineResult is what counting one line came to.
type lineResult struct {
	recs    []agent.UsageRecord
	skipped int
}

// referenceLine counts a line the way the counter did before jsonl.Pick:
// checked by jsonl.ValidNested, then read through gjson.
func referenceLine(b []byte) lineResult {
	if !jsonl.ValidNested(b, serdeDepth) {
		return lineResult{skipped: 1}
	}
	rec, ok, valid := gjsonRecord(b)
	if !ok || !valid {
		return lineResult{skipped: 1}
	}
	rec.Model = strings.Clone(rec.Model)
	return lineResult{recs: []agent.UsageRecord{rec}}
}

func pickedLine(b []byte) lineResult {
	c := &claudeUsage{}
	c.Start(nil)
	c.Line(b, 0)
	recs, skipped, _, _ := c.End()
	return lineResult{recs: recs, skipped: skipped}
}

func checkPicked(t *testing.T, line string) {
	t.Helper()
	got, want := pickedLine([]byte(line)), referenceLine([]byte(line))
	if got.skipped != want.skipped || len(got.recs) != len(want.recs) || len(got.recs) == 1 && got.recs[0] != want.recs[0] {
		t.Errorf("line %q:\n picked %+v\n gjson  %+v", line, got, want)
	}
}

func TestPickedMatchesGJSON(t *testing.T) {
	counted := 0
	for _, c := range pickCases {
		checkPicked(t, strings.TrimSuffix(c, "\n"))
		if r := pickedLine([]byte(strings.TrimSuffix(c, "\n"))); len(r.recs) == 1 {
			counted++
			if r.recs[0].Quirk {
				counted += 100
			}
		}
	}
	// The cases count some records and mark some as ccusage's quirk: a
	// test of only skipped lines would pass with a counter that counts
	// nothing.
	if counted%100 == 0 || counted < 100 {
		t.Errorf("the cases counted %d records, %d marked: both must be some", counted%100, counted/100)
	}
}

// FuzzPickedMatchesGJSON: the one-walk counter and the gjson reading agree
// on every line.
func FuzzPickedMatchesGJSON(f *testing.F) {
	for _, c := range pickCases {
		f.Add(strings.TrimSuffix(c, "\n"))
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.IndexByte(line, '\n') >= 0 {
			return
		}
		checkPicked(t, line)
	})
}

// A line nested deeper than ccusage's JSON parser goes (serde_json's
// recursion limit: 127 levels, the line's own object one of them) is
// skipped, as ccusage 20.0.24 skips it (measured: a record whose unread
// field nests 126 arrays counts, 127 does not).
func TestUsageLineNestingLimit(t *testing.T) {
	line := func(arrays int) string {
		return `{"timestamp":"2026-03-01T10:00:00Z","junk":` + strings.Repeat("[", arrays) + strings.Repeat("]", arrays) +
			`,"message":{"id":"m","model":"claude-x","usage":{"input_tokens":1,"output_tokens":2}}}`
	}
	for _, c := range []struct {
		arrays int
		counts bool
	}{{1, true}, {126, true}, {127, false}, {300, false}} {
		r := pickedLine([]byte(line(c.arrays)))
		if got := len(r.recs) == 1; got != c.counts {
			t.Errorf("junk nesting %d arrays: counted %v, want %v", c.arrays, got, c.counts)
		}
	}
}

package state

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

var codecStrings = []string{"", "s1", "/home/example/src/proj", "claude-opus-5-5", "a\"b", `back\slash`, "<tag>&amp;", "tab\there",
	"nl\n", "\x00\x1f\x7f", "café 🚀", "bad \xff utf8", "sep\u2028\u2029", "rtl\u202e", strings.Repeat("x", 300)}

var codecFloats = []float64{0, 0.1, 50, 99.9, 100, 1e-7, 1.5e-9, 1e21, 123456789.123, -3.25, math.SmallestNonzeroFloat64, math.MaxFloat64, math.Copysign(0, -1)}

var codecTimes = []time.Time{{}, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.FixedZone("x", 3600)),
	time.Unix(1764500000, 5).In(time.Local), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)}

func randomSession(r *rand.Rand) Session {
	str := func() string { return codecStrings[r.IntN(len(codecStrings))] }
	num := func() int64 { return []int64{0, 1, -1, 1136, 1 << 40, math.MaxInt64, math.MinInt64}[r.IntN(7)] }
	tm := func() time.Time { return codecTimes[r.IntN(len(codecTimes))] }
	return Session{SessionID: str(), Harness: str(), IdentityRoot: str(), Cwd: str(), TranscriptPath: str(), Model: str(),
		Tokens: num(), Window: num(), WindowSource: str(), Percent: codecFloats[r.IntN(len(codecFloats))], ReportedWindow: num(),
		UsageKnown: r.IntN(2) == 0, CompactPending: r.IntN(2) == 0, TokensBeforeCompact: num(), LastEvent: str(),
		Started: tm(), RunStarted: tm(), Updated: tm(), Ended: r.IntN(2) == 0}
}

// TestCodecMatchesEncodingJSON: encodeSession writes json.Marshal's bytes
// and decodeSession returns json.Unmarshal's result (value and whether it
// fails) for every input: what tether writes, and files changed by hand
// or by another version.
func TestCodecMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var docs []string
	for range 3000 {
		s := randomSession(r)
		want, wantErr := json.Marshal(s)
		got, err := encodeSession(s)
		if string(got) != string(want) || (err == nil) != (wantErr == nil) {
			t.Fatalf("encode %+v:\n got %s %v\nwant %s %v", s, got, err, want, wantErr)
		}
		docs = append(docs, string(want))
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		_, want := json.Marshal(Session{Percent: bad})
		if _, err := encodeSession(Session{Percent: bad}); err == nil || err.Error() != want.Error() {
			t.Errorf("percent %v: %v, want %v", bad, err, want)
		}
	}
	if _, err := encodeSession(Session{Updated: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("a year json cannot encode was encoded")
	}
	docs = append(docs, "", "null", "[]", "{}", " {} \n", `{"tokens":1}x`, `{"tokens":"1"}`, `{"tokens":1.0}`, `{"tokens":1e3}`,
		`{"tokens":01}`, `{"tokens":+1}`, `{"tokens":-0}`, `{"tokens":99999999999999999999}`, `{"percent":.5}`, `{"percent":1.}`,
		`{"percent":1E+2}`, `{"percent":-0.0}`, `{"percent":"50"}`, `{"Session_ID":"x"}`, `{"session_id":"a","session_id":"b"}`,
		`{"session_id":"a\u0041"}`, `{"session_id":"é"}`, `{"session_id":null}`, `{"session_id":1}`, `{"ended":1}`, `{"ended":null}`,
		`{"updated":null}`, `{"updated":"yesterday"}`, `{"updated":"2026-11-30T12:00:00Z"}`, `{"updated":5}`, `{"future_field":{"a":[1]}}`,
		`{"window":{}}`, `{"usage_known":true,"usage_known":false}`, `{"\u0074okens":5}`, `{"tokens":5,}`, `{"tokens" : 5 }`)
	for i, doc := range docs {
		var want Session
		wantErr := json.Unmarshal([]byte(doc), &want)
		got, err := decodeSession([]byte(doc))
		if (err == nil) != (wantErr == nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("decode #%d %q:\n got %+v %v\nwant %+v %v", i, doc, got, err, want, wantErr)
		}
	}
}

// What tether writes for a session decodes without encoding/json.
func TestCodecFastPathTakesTetherFiles(t *testing.T) {
	s := Session{SessionID: "46109767-59bd-426c-8b28-079ed1251f9e", Harness: "claude-code", IdentityRoot: "/home/example/src/proj",
		Cwd: "/home/example/src/proj", TranscriptPath: "/home/example/.claude/projects/-home-example-src-proj/46109767.jsonl",
		Model: "claude-opus-5-5", Tokens: 1136, Window: 1000000, WindowSource: "statusline", Percent: 0.1, UsageKnown: true,
		LastEvent: "Stop", Started: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Updated: time.Now()}
	data, err := encodeSession(s)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decodeFast(data)
	if !ok {
		t.Fatalf("fast path refused %s", data)
	}
	var want Session
	json.Unmarshal(data, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

package claudesessions

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/scan"
)

// Every field of a summary survives the cache file: times in UTC, in a
// fixed offset and zero, hostile strings, the message state's extremes.
func TestSummaryCodecRoundTrip(t *testing.T) {
	utc := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)
	east := time.Date(2026, 3, 4, 8, 36, 7, 1, time.FixedZone("", 3*3600+30*60))
	msgs := scan.MsgState{Known: true, Count: agent.MessageCount{N: 42, Off: 1 << 40, Last: 1<<64 - 1}, Ino: 1<<63 + 5, Head: 0xdeadbeef, HeadLen: -1}
	want := summary{
		ID: "a", Cwd: "/home/example/p", Branch: "main", Version: "2.1.3", Entrypoint: "cli", Model: "m",
		Created: utc, LastActivity: east, FirstPrompt: "fix\tthe \x1b[31mbug\x00\xff", CustomTitle: "c", AITitle: "ai",
		LastPrompt: "lp", Summary: "s", Tokens: 1 << 50, HasUsage: true, Records: 7, Problem: "p", Msgs: msgs}
	path := filepath.Join(t.TempDir(), "c.gob")
	c := OpenCache(path)
	c.Store("/p/a.jsonl", 123, time.Unix(0, -5), want)
	c.Store("/p/b.jsonl", 0, time.Unix(0, 0), summary{Problem: "empty transcript"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	var got summary
	if size, mtime, ok := OpenCache(path).LookupSized("/p/a.jsonl", &got); !ok || size != 123 || mtime != -5 {
		t.Fatalf("not cached: %v %d %d", ok, size, mtime)
	}
	if _, off := got.LastActivity.Zone(); off != 3*3600+30*60 || !got.LastActivity.Equal(east) || !got.Created.Equal(utc) || !got.LastHuman.IsZero() {
		t.Errorf("times: %v %v %v", got.Created, got.LastActivity, got.LastHuman)
	}
	got.Created, got.LastActivity, got.LastHuman = want.Created, want.LastActivity, want.LastHuman
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

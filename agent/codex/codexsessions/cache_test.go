package codexsessions

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/scan"
)

// Every field of a rollout's tail and of the state database's rows
// survives the cache file: times in UTC, in a fixed offset and zero,
// hostile strings, the stamp's and message state's extremes.
func TestCodecRoundTrip(t *testing.T) {
	utc := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)
	east := time.Date(2026, 3, 4, 8, 36, 7, 1, time.FixedZone("", 3*3600+30*60))
	msgs := scan.MsgState{Known: true, Count: agent.MessageCount{N: 42, Off: 1 << 40, Last: 1<<64 - 1}, Ino: 1<<63 + 5, Head: 0xdeadbeef, HeadLen: -1}
	tl := rolloutTail{ID: "r", Cwd: "/w", Source: "exec", CLIVersion: "0.171.0", Model: "gpt", GitBranch: "b", GitSHA: "abc",
		GitOrigin: "git@example.com:o/r.git", FirstPrompt: "\xff\xfe", Created: east, Last: utc, LastHuman: utc,
		Tokens: 5, Window: 272000, HasUsage: true, Valid: 3, Size: 9, Msgs: msgs}
	rec := threadsRecord{Stamp: scan.DBStamp{DBSize: 1, DBMTime: 2, WALSize: 3, WALMTime: -4, DBIno: 5, WALIno: 1<<64 - 1}, Checked: 7,
		Rows: []threadRow{{ID: "r", RolloutPath: "/r.jsonl", Cwd: "/w", Source: "exec", Title: "t", Name: "n", FirstUser: "f\n",
			GitSHA: "abc", GitBranch: "b", GitOrigin: "o", CLIVersion: "0.171.0", Model: "m", Created: utc, Updated: east, Archived: true}, {}}}
	path := filepath.Join(t.TempDir(), "c.gob")
	c := OpenCache(path)
	c.Store("/r.jsonl", 9, time.Unix(0, 1<<60), tl)
	c.StoreRecord("/state_5.sqlite", rec)
	c.StoreRecord("/empty.sqlite", threadsRecord{})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	warm := OpenCache(path)
	var got rolloutTail
	if size, mtime, ok := warm.LookupSized("/r.jsonl", &got); !ok || size != 9 || mtime != 1<<60 {
		t.Fatalf("tail not cached: %v %d %d", ok, size, mtime)
	}
	if _, off := got.Created.Zone(); off != 3*3600+30*60 || !got.Created.Equal(east) || !got.Last.Equal(utc) {
		t.Errorf("times: %v %v", got.Created, got.Last)
	}
	got.Created, got.Last, got.LastHuman = tl.Created, tl.Last, tl.LastHuman
	if !reflect.DeepEqual(got, tl) {
		t.Errorf("tail:\n got %+v\nwant %+v", got, tl)
	}
	r, ok := warm.Record("/state_5.sqlite")
	if !ok || len(r.Rows) != 2 {
		t.Fatalf("rows not cached: %+v %v", r, ok)
	}
	row := r.Rows[0]
	if _, off := row.Updated.Zone(); off != 3*3600+30*60 || !row.Updated.Equal(east) || !row.Created.Equal(utc) {
		t.Errorf("row times: %v %v", row.Created, row.Updated)
	}
	gotRec := *r
	gotRec.Rows = []threadRow{row, r.Rows[1]}
	gotRec.Rows[0].Created, gotRec.Rows[0].Updated = rec.Rows[0].Created, rec.Rows[0].Updated
	if !reflect.DeepEqual(gotRec, rec) {
		t.Errorf("rows:\n got %+v\nwant %+v", gotRec, rec)
	}
	if e, ok := warm.Record("/empty.sqlite"); !ok || len(e.Rows) != 0 {
		t.Errorf("empty record: %+v %v", e, ok)
	}
}

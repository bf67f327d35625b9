package catalog

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// sampleCacheFile has every field of every record set, times in UTC, in a
// fixed offset and zero, and hostile strings (empty, NUL, non-UTF-8).
func sampleCacheFile() cacheFile {
	utc := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)
	east := time.Date(2026, 3, 4, 8, 36, 7, 1, time.FixedZone("", 3*3600+30*60))
	msgs := msgState{Known: true, Count: MessageCount{N: 42, Off: 1 << 40, Last: 1<<64 - 1}, Ino: 1<<63 + 5, Head: 0xdeadbeef, HeadLen: -1}
	return cacheFile{
		Version:    cacheVersion,
		CountStamp: "stamp\x00\xff",
		Entries: map[string]*cacheEntry{
			"/home/example/.claude/projects/p/a.jsonl": &cacheEntry{Size: 123, MTime: -5, Claude: &claudeSummary{
				ID: "a", Cwd: "/home/example/p", Branch: "main", Version: "2.1.3", Entrypoint: "cli", Model: "m",
				Created: utc, LastActivity: east, FirstPrompt: "fix\tthe \x1b[31mbug", CustomTitle: "c", AITitle: "ai",
				LastPrompt: "lp", Summary: "s", Tokens: 1 << 50, HasUsage: true, Records: 7, Problem: "", Msgs: msgs}},
			"/home/example/.claude/projects/p/b.jsonl": &cacheEntry{Size: 0, MTime: 0, Claude: &claudeSummary{Problem: "empty transcript"}},
			"/home/example/.codex/sessions/r.jsonl": &cacheEntry{Size: 9, MTime: 1 << 60, Codex: &codexTail{
				ID: "r", Cwd: "/w", Source: "exec", CLIVersion: "0.171.0", Model: "gpt", GitBranch: "b", GitSHA: "abc",
				GitOrigin: "git@example.com:o/r.git", FirstPrompt: "\xff\xfe", Created: east, Last: utc, LastHuman: utc,
				Tokens: 5, Window: 272000, HasUsage: true, Valid: 3, Size: 9, Msgs: msgs}},
			"/none": &cacheEntry{Size: 1, MTime: 2},
		},
		DBs: map[string]*threadsRecord{
			"/home/example/.codex/state_5.sqlite": {Stamp: dbStamp{DBSize: 1, DBMTime: 2, WALSize: 3, WALMTime: -4, DBIno: 5, WALIno: 1<<64 - 1}, Checked: 7,
				Rows: []codexRow{{ID: "r", RolloutPath: "/r.jsonl", Cwd: "/w", Source: "exec", Title: "t", Name: "n", FirstUser: "f\n",
					GitSHA: "abc", GitBranch: "b", GitOrigin: "o", CLIVersion: "0.171.0", Model: "m", Created: utc, Updated: east, Archived: true}, {}}},
			"/empty.sqlite": {},
		},
		Dirs: map[string]dirRecord{
			"/home/example/.claude/projects/p": {MTime: 1, Checked: 2, Newest: 3, Files: []string{"a.jsonl", "b.jsonl"}},
			"/empty":                           {MTime: 4},
		},
	}
}

func TestCacheCodecRoundTrip(t *testing.T) {
	want := sampleCacheFile()
	got, err := decodeCache(encodeCache(want))
	if err != nil {
		t.Fatal(err)
	}
	// Times compare by instant and offset (what gob kept too).
	if !reflect.DeepEqual(normTimes(got), normTimes(want)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	e := got.Entries["/home/example/.claude/projects/p/a.jsonl"].Claude
	if _, off := e.LastActivity.Zone(); off != 3*3600+30*60 || !e.LastActivity.Equal(want.Entries["/home/example/.claude/projects/p/a.jsonl"].Claude.LastActivity) {
		t.Errorf("offset lost: %v", e.LastActivity)
	}
	if e.LastHuman != (time.Time{}) || !e.LastHuman.IsZero() {
		t.Errorf("zero time: %#v", e.LastHuman)
	}
	// An empty file round-trips too.
	if got, err := decodeCache(encodeCache(cacheFile{})); err != nil || len(got.Entries) != 0 || got.Entries == nil || got.Dirs == nil {
		t.Errorf("empty: %+v %v", got, err)
	}
}

// normTimes replaces every time by its instant and offset in text, so
// DeepEqual compares what the encoding must keep.
func normTimes(f cacheFile) map[string]any {
	out := map[string]any{"stamp": f.CountStamp, "dirs": f.Dirs}
	for p, rec := range f.DBs {
		r := *rec
		r.Rows = nil
		var rows []any
		for _, row := range rec.Rows {
			rows = append(rows, fmtTimes(&row.Created, &row.Updated), row)
		}
		out["db "+p] = []any{r, rows}
	}
	for p, e := range f.Entries {
		if e.Claude != nil {
			c := *e.Claude
			out[p] = []any{e.Size, e.MTime, fmtTimes(&c.Created, &c.LastActivity, &c.LastHuman), c}
		} else if e.Codex != nil {
			c := *e.Codex
			out[p] = []any{e.Size, e.MTime, fmtTimes(&c.Created, &c.Last, &c.LastHuman), c}
		} else {
			out[p] = []any{e.Size, e.MTime}
		}
	}
	return out
}

func fmtTimes(ts ...*time.Time) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Format(time.RFC3339Nano))
		*t = time.Time{}
	}
	return out
}

// Every cut of a valid file, every flipped byte, and garbage with a valid
// checksum are refused without a panic: never trusted.
func TestCacheCodecRejectsDamage(t *testing.T) {
	data := encodeCache(sampleCacheFile())
	for n := range len(data) {
		if _, err := decodeCache(data[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(data))
		}
	}
	if _, err := decodeCache(append(bytes.Clone(data), 0)); err == nil {
		t.Error("a trailing byte: accepted")
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x40
		if _, err := decodeCache(bad); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
	// A body that checks out but does not parse (a writer's bug): the
	// parser's bounds checks alone must refuse it.
	head := len(cacheMagic) + 1 // the version fits one byte
	rng := rand.New(rand.NewSource(1))
	for range 2000 {
		body := bytes.Clone(data[head+4:])
		for range 1 + rng.Intn(4) {
			body[rng.Intn(len(body))] = byte(rng.Intn(256))
		}
		body = body[:rng.Intn(len(body)+1)]
		_, _ = decodeCache(resum(data[:head], body)) // must not panic
	}
	if _, err := decodeCache(resum(data[:head], []byte{0, 0xff, 0xff, 0xff, 0xff, 0x0f})); err == nil {
		t.Error("a count larger than the file: accepted")
	}
}

func resum(head, body []byte) []byte {
	out := binary.LittleEndian.AppendUint32(bytes.Clone(head), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return append(out, body...)
}

// A cache of another version, of the old gob encoding or damaged is an
// empty cache, and the next Save replaces it with a good one.
func TestOpenCacheIgnoresOldAndDamagedFiles(t *testing.T) {
	dir := t.TempDir()
	want := sampleCacheFile()
	good := encodeCache(want)
	newer := append([]byte(cacheMagic), binary.AppendUvarint(nil, cacheVersion+1)...)
	newer = append(newer, good[len(cacheMagic)+1:]...)
	var gobV4 bytes.Buffer
	if err := gob.NewEncoder(&gobV4).Encode(struct {
		Version int
		Entries map[string]*cacheEntry
	}{4, want.Entries}); err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 1
	for name, data := range map[string][]byte{
		"newer version": newer, "gob v4": gobV4.Bytes(), "flipped": flipped, "truncated": good[:len(good)/2], "empty": nil,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := OpenCache(path)
		var sum claudeSummary
		if _, ok := c.LookupAny("/home/example/.claude/projects/p/a.jsonl", &sum); ok {
			t.Errorf("%s: an entry was trusted", name)
		}
		if _, ok := c.Dir("/empty"); ok {
			t.Errorf("%s: a directory record was trusted", name)
		}
		c.Store("/x.jsonl", 1, time.Unix(0, 7), claudeSummary{ID: "x"})
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		c2 := OpenCache(path)
		if !c2.Lookup("/x.jsonl", 1, time.Unix(0, 7), &sum) || sum.ID != "x" {
			t.Errorf("%s: not rebuilt: %+v", name, sum)
		}
	}
	// The good file is taken whole.
	path := filepath.Join(dir, "good")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	c := OpenCache(path)
	var sum claudeSummary
	if !c.Lookup("/home/example/.claude/projects/p/a.jsonl", 123, time.Unix(0, -5), &sum) || sum.FirstPrompt != "fix\tthe \x1b[31mbug" {
		t.Errorf("good file: %+v", sum)
	}
	if d, ok := c.Dir("/home/example/.claude/projects/p"); !ok || len(d.Files) != 2 {
		t.Errorf("good file's dir: %+v %v", d, ok)
	}
	if c.countStamp() != want.CountStamp {
		t.Errorf("stamp %q", c.countStamp())
	}
}

// The cache's strings share the mapped file: replacing the file (the next
// Save, another tether process's, a cache clear) must leave the values a
// listing already took intact.
func TestCacheValuesOutliveTheirFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.gob")
	c := OpenCache(path)
	mtime := time.Unix(1700000000, 5)
	c.Store("/p/a.jsonl", 10, mtime, claudeSummary{ID: "a", Cwd: "/home/example/first", FirstPrompt: "first prompt"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	warm := OpenCache(path)
	var got claudeSummary
	if !warm.Lookup("/p/a.jsonl", 10, mtime, &got) {
		t.Fatal("not cached")
	}
	other := OpenCache(path)
	other.Store("/p/a.jsonl", 11, mtime, claudeSummary{ID: "b", Cwd: "/home/example/second", FirstPrompt: "another"})
	if err := other.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := ClearCache(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte{0xff}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if got.ID != "a" || got.Cwd != "/home/example/first" || got.FirstPrompt != "first prompt" {
		t.Errorf("after the file was replaced: %+v", got)
	}
	warm.Store("/p/b.jsonl", 1, mtime, claudeSummary{ID: "c"}) // so Save writes
	if err := warm.Save(); err != nil {                        // over the garbage, what it holds
		t.Fatal(err)
	}
	var again claudeSummary
	if !OpenCache(path).Lookup("/p/a.jsonl", 10, mtime, &again) || again.Cwd != "/home/example/first" {
		t.Errorf("saved from the mapped values: %+v", again)
	}
}

package filecache

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"hash/crc32"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/bincodec"
)

// val and rec stand for a reader's values and records: strings, times and
// integers of every kind the readers keep.
type val struct {
	ID, Cwd, FirstPrompt string
	Created, Last        time.Time
	Tokens               int64
	HasUsage             bool
	Count                agent.MessageCount
}

type rec struct {
	Checked int64
	Rows    []string
}

var testCodec = Codec[val, rec]{
	Kind: "test/1",
	Put: func(w *bincodec.Writer, v *val) {
		w.Str(v.ID)
		w.Str(v.Cwd)
		w.Str(v.FirstPrompt)
		w.Time(v.Created)
		w.Time(v.Last)
		w.Int(v.Tokens)
		w.Bool(v.HasUsage)
		w.Int(int64(v.Count.N))
	},
	Get: func(r *bincodec.Reader) val {
		v := val{ID: r.Str(), Cwd: r.Str(), FirstPrompt: r.Str(), Created: r.Time(), Last: r.Time(), Tokens: r.Int(), HasUsage: r.Bool()}
		v.Count.N = int(r.Int())
		return v
	},
	SetCount: func(v *val, mc agent.MessageCount) { v.Count = mc },
	PutRecord: func(w *bincodec.Writer, r *rec) {
		w.Int(r.Checked)
		w.Uint(uint64(len(r.Rows)))
		for _, s := range r.Rows {
			w.Str(s)
		}
	},
	GetRecord: func(r *bincodec.Reader) rec {
		out := rec{Checked: r.Int()}
		for range r.Count() {
			out.Rows = append(out.Rows, r.Str())
		}
		return out
	},
}

const samplePath = "/home/example/.claude/projects/p/a.jsonl"

// sampleCache has every part set, times in UTC, in a fixed offset and
// zero, and hostile strings (empty, NUL, non-UTF-8).
func sampleCache() *Cache[val, rec] {
	utc := time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)
	east := time.Date(2026, 3, 4, 8, 36, 7, 1, time.FixedZone("", 3*3600+30*60))
	c := &Cache[val, rec]{codec: &testCodec}
	c.reset()
	c.stamp = "stamp\x00\xff"
	c.entries[samplePath] = &entry[val]{Size: 123, MTime: -5, V: &val{ID: "a", Cwd: "/home/example/p",
		FirstPrompt: "fix\tthe \x1b[31mbug", Created: utc, Last: east, Tokens: 1 << 50, HasUsage: true, Count: agent.MessageCount{N: 42}}}
	c.entries["/home/example/.codex/sessions/r.jsonl"] = &entry[val]{Size: 9, MTime: 1 << 60, V: &val{ID: "\xff\xfe", Created: east}}
	c.entries["/none"] = &entry[val]{Size: 1, MTime: 2, V: &val{}}
	c.recs["/home/example/.codex/state_5.sqlite"] = &record[rec]{V: rec{Checked: 7, Rows: []string{"r", "", "f\n"}}}
	c.recs["/empty.sqlite"] = &record[rec]{}
	c.dirs["/home/example/.claude/projects/p"] = DirRecord{MTime: 1, Checked: 2, Newest: 3, Files: []string{"a.jsonl", "b.jsonl"}}
	c.dirs["/empty"] = DirRecord{MTime: 4}
	return c
}

// normTimes replaces every time by its instant and offset in text, so
// DeepEqual compares what the encoding must keep.
func normTimes(f file[val, rec]) map[string]any {
	out := map[string]any{"stamp": f.stamp, "dirs": f.dirs}
	for k, r := range f.recs {
		out["rec "+k] = r.V
	}
	for p, e := range f.entries {
		v := *e.V
		out[p] = []any{e.Size, e.MTime, fmtTimes(&v.Created, &v.Last), v}
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

func TestCacheCodecRoundTrip(t *testing.T) {
	c := sampleCache()
	want := file[val, rec]{stamp: c.stamp, entries: c.entries, dirs: c.dirs, recs: c.recs}
	got, err := decode(encode(c), &testCodec)
	if err != nil {
		t.Fatal(err)
	}
	// Times compare by instant and offset (what gob kept too).
	if !reflect.DeepEqual(normTimes(got), normTimes(want)) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	e := got.entries[samplePath].V
	if _, off := e.Last.Zone(); off != 3*3600+30*60 || !e.Last.Equal(want.entries[samplePath].V.Last) {
		t.Errorf("offset lost: %v", e.Last)
	}
	if v := got.entries["/none"].V; v.Created != (time.Time{}) || !v.Created.IsZero() {
		t.Errorf("zero time: %#v", v.Created)
	}
	// An empty file round-trips too.
	empty := &Cache[val, rec]{codec: &testCodec}
	empty.reset()
	if got, err := decode(encode(empty), &testCodec); err != nil || len(got.entries) != 0 || got.entries == nil || got.dirs == nil {
		t.Errorf("empty: %+v %v", got, err)
	}
	// Another reader's file is not this one's.
	other := testCodec
	other.Kind = "other/1"
	if _, err := decode(encode(c), &other); err == nil {
		t.Error("a file of another kind: accepted")
	}
}

// Every cut of a valid file, every flipped byte, and garbage with a valid
// checksum are refused without a panic: never trusted.
func TestCacheCodecRejectsDamage(t *testing.T) {
	data := encode(sampleCache())
	for n := range len(data) {
		if _, err := decode(data[:n], &testCodec); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", n, len(data))
		}
	}
	if _, err := decode(append(bytes.Clone(data), 0), &testCodec); err == nil {
		t.Error("a trailing byte: accepted")
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x40
		if _, err := decode(bad, &testCodec); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
	// A body that checks out but does not parse (a writer's bug): the
	// parser's bounds checks alone must refuse it.
	head := len(magic) + 1 // the version fits one byte
	rng := rand.New(rand.NewSource(1))
	for range 2000 {
		body := bytes.Clone(data[head+4:])
		for range 1 + rng.Intn(4) {
			body[rng.Intn(len(body))] = byte(rng.Intn(256))
		}
		body = body[:rng.Intn(len(body)+1)]
		_, _ = decode(resum(data[:head], body), &testCodec) // must not panic
	}
	kind := append([]byte{byte(len(testCodec.Kind))}, testCodec.Kind...)
	if _, err := decode(resum(data[:head], append(kind, 0, 0xff, 0xff, 0xff, 0xff, 0x0f)), &testCodec); err == nil {
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
	sample := sampleCache()
	good := encode(sample)
	newer := append([]byte(magic), binary.AppendUvarint(nil, Version+1)...)
	newer = append(newer, good[len(magic)+1:]...)
	var gobV4 bytes.Buffer
	if err := gob.NewEncoder(&gobV4).Encode(struct {
		Version int
		Entries map[string]*entry[val]
	}{4, sample.entries}); err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 1
	other := testCodec
	other.Kind = "other/1"
	otherKind := encode(&Cache[val, rec]{codec: &other, entries: sample.entries, dirs: sample.dirs, recs: sample.recs})
	for name, data := range map[string][]byte{
		"newer version": newer, "gob v4": gobV4.Bytes(), "flipped": flipped, "truncated": good[:len(good)/2], "empty": nil,
		"another kind": otherKind,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := Open(path, &testCodec)
		var v val
		if _, ok := c.LookupAny(samplePath, &v); ok {
			t.Errorf("%s: an entry was trusted", name)
		}
		if _, ok := c.Dir("/empty"); ok {
			t.Errorf("%s: a directory record was trusted", name)
		}
		c.Store("/x.jsonl", 1, time.Unix(0, 7), val{ID: "x"})
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
		c2 := Open(path, &testCodec)
		if !c2.Lookup("/x.jsonl", 1, time.Unix(0, 7), &v) || v.ID != "x" {
			t.Errorf("%s: not rebuilt: %+v", name, v)
		}
	}
	// The good file is taken whole.
	path := filepath.Join(dir, "good")
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	c := Open(path, &testCodec)
	var v val
	if !c.Lookup(samplePath, 123, time.Unix(0, -5), &v) || v.FirstPrompt != "fix\tthe \x1b[31mbug" {
		t.Errorf("good file: %+v", v)
	}
	if d, ok := c.Dir("/home/example/.claude/projects/p"); !ok || len(d.Files) != 2 {
		t.Errorf("good file's dir: %+v %v", d, ok)
	}
	if r, ok := c.Record("/home/example/.codex/state_5.sqlite"); !ok || len(r.Rows) != 3 {
		t.Errorf("good file's record: %+v %v", r, ok)
	}
	if c.countStamp() != sample.stamp {
		t.Errorf("stamp %q", c.countStamp())
	}
}

// The cache's strings share the file's bytes as read: replacing the file
// (the next Save, another tether process's, a cache clear) must leave the
// values a listing already took intact.
func TestCacheValuesOutliveTheirFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.gob")
	c := Open(path, &testCodec)
	mtime := time.Unix(1700000000, 5)
	c.Store("/p/a.jsonl", 10, mtime, val{ID: "a", Cwd: "/home/example/first", FirstPrompt: "first prompt"})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	warm := Open(path, &testCodec)
	var got val
	if !warm.Lookup("/p/a.jsonl", 10, mtime, &got) {
		t.Fatal("not cached")
	}
	other := Open(path, &testCodec)
	other.Store("/p/a.jsonl", 11, mtime, val{ID: "b", Cwd: "/home/example/second", FirstPrompt: "another"})
	if err := other.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil { // what a cache clear does
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte{0xff}, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	if got.ID != "a" || got.Cwd != "/home/example/first" || got.FirstPrompt != "first prompt" {
		t.Errorf("after the file was replaced: %+v", got)
	}
	warm.Store("/p/b.jsonl", 1, mtime, val{ID: "c"}) // so Save writes
	if err := warm.Save(); err != nil {              // over the garbage, what it holds
		t.Fatal(err)
	}
	var again val
	if !Open(path, &testCodec).Lookup("/p/a.jsonl", 10, mtime, &again) || again.Cwd != "/home/example/first" {
		t.Errorf("saved from the mapped values: %+v", again)
	}
}

// TestCacheTruncatedInPlace (issue 23, item 11): a cache file truncated in
// place (not replaced by rename, as tether writes it) while a reader holds
// what it decoded must not crash that reader: the decoded strings live in
// memory of the process, not in a mapping of the file.
func TestCacheTruncatedInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog-claude-code.gob")
	sample := sampleCache()
	if err := os.WriteFile(path, encode(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Open(path, &testCodec)
	v, _, _, ok := c.Peek(samplePath)
	if !ok {
		t.Fatal("the cache did not load")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	// Reading the strings after the truncation (a fault, before).
	got := strings.Clone(v.FirstPrompt) + strings.Clone(v.Cwd)
	if w := sample.entries[samplePath].V; got != w.FirstPrompt+w.Cwd {
		t.Errorf("after truncation: %q", got)
	}
}

// FillCounts records the index's count in the entry (a new value: one a
// Peek handed out is left as it was) and asks the index once per stamp.
func TestFillCountsOncePerStamp(t *testing.T) {
	c := Open(filepath.Join(t.TempDir(), "c.gob"), &testCodec)
	c.Store("/a", 1, time.Unix(0, 2), val{ID: "a"})
	held, _, _, _ := c.Peek("/a")
	ix := &stampedCounts{stamp: "s1"}
	if got := c.FillCounts(ix, []string{"/a", "/missing"}); got["/a"].N != 3 || len(got) != 1 {
		t.Errorf("filled %v", got)
	}
	if held.Count.N != 0 {
		t.Error("a value handed out was changed in place")
	}
	if v, _, _, _ := c.Peek("/a"); v.Count.N != 3 {
		t.Errorf("entry count %d, want 3", v.Count.N)
	}
	if c.FillCounts(ix, []string{"/a"}) != nil || ix.loads != 1 {
		t.Errorf("asked the index again at the same stamp (%d loads)", ix.loads)
	}
}

type stampedCounts struct {
	stamp string
	loads int
}

func (s *stampedCounts) Stamp() string { return s.stamp }
func (s *stampedCounts) Load() (agent.CountLookup, error) {
	s.loads++
	return func(path string, size, mtime int64) (agent.MessageCount, bool) {
		return agent.MessageCount{N: 3}, path == "/a" && size == 1 && mtime == 2
	}, nil
}

// indexMarker finds what bytes.Index finds, whichever byte it searches by.
func TestIndexMarker(t *testing.T) {
	for _, m := range []string{`"usage":{`, `n_co`} {
		for rare := range len(m) {
			for _, s := range []string{``, `{`, `_`, `n_c`, `_co`, m, `x` + m, `{{{"usage"{` + m, `"usage":`, `"usage":[` + m + `"a"`, m + `x` + m,
				`n_cn_co`, `__n_co_`, `token_count turn_context`} {
				for from := range len(s) + 1 {
					for to := from; to <= len(s); to++ {
						b := []byte(s[from:to])
						if got, want := indexMarker(b, []byte(m), rare), bytes.Index(b, []byte(m)); got != want {
							t.Errorf("indexMarker(%q, %q, %d) = %d, want %d", b, m, rare, got, want)
						}
					}
				}
			}
		}
	}
}

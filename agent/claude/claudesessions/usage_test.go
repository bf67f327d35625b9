package claudesessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/filecache"
)

// countingOpen counts the bytes read through the files it opens.
type countingOpen struct{ n int64 }

type countingFile struct {
	*os.File
	c *countingOpen
}

func (f countingFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.c.n += int64(n)
	return n, err
}

func (f countingFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	f.c.n += int64(n)
	return n, err
}

func (c *countingOpen) open(name string) (agent.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return countingFile{f, c}, nil
}

func usageLine(id, req string, in int) string {
	return `{"type":"assistant","timestamp":"2026-03-01T10:00:00.000Z","sessionId":"s","version":"2.1.3","requestId":"` + req +
		`","message":{"id":"` + id + `","model":"claude-sonnet-4-5-20250929","usage":{"input_tokens":` + itoa(in) + `,"output_tokens":2}}}` + "\n"
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

func countReader(t *testing.T, dir string, open agent.Opener) ([]agent.FileUsage, []agent.Diagnostic) {
	t.Helper()
	r := New(dir).Sessions(agent.ReaderConfig{CachePath: filepath.Join(t.TempDir(), "..", "cache", "catalog-claude-code.gob"), Open: open}).(*Reader)
	files, diags, err := r.CountUsage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return files, diags
}

// Each kind of bad line is skipped, counted, never fatal; lines of any
// record type with a message's usage count (as in ccusage).
func TestUsageSkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	lines := []string{
		usageLine("m1", "r1", 10),
		`{"broken","usage":{"input_tokens":1` + "\n",
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","message":{"id":"m2","usage":{"input_tokens":"12","output_tokens":1}}}` + "\n",
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","message":{"id":"m3","usage":{"input_tokens":1.5,"output_tokens":1}}}` + "\n",
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","message":{"id":"m4","usage":{"input_tokens":-3,"output_tokens":1}}}` + "\n",
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","version":"beta","message":{"id":"m5","usage":{"input_tokens":3,"output_tokens":1}}}` + "\n",
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","message":{"id":null,"usage":{"input_tokens":3,"output_tokens":1}}}` + "\n",
		`{"type":"novel","timestamp":"2026-03-01T10:00:00Z","message":{"id":"m6","model":"<synthetic>","usage":{"input_tokens":4,"output_tokens":0}}}` + "\n",
		`{"type":"user","timestamp":"2026-03-01T10:00:00Z","message":{"role":"user","content":"no usage here"}}` + "\n",
	}
	write(t, p, strings.Join(lines, ""))
	files, diags := countReader(t, dir, nil)
	if len(diags) != 0 || len(files) != 1 {
		t.Fatalf("files %+v diags %+v", files, diags)
	}
	f := files[0]
	if f.Skipped != 6 || len(f.Records) != 2 {
		t.Fatalf("skipped %d records %+v, want 6 skipped and 2 counted", f.Skipped, f.Records)
	}
	if f.Records[1].Model != "" || f.Records[1].Input != 4 || f.Session != "s1" || f.Project != "-w-p" {
		t.Fatalf("synthetic record %+v of %+v: its tokens count in no model", f.Records[1], f)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// A warm count reads only what was appended; a file rewritten shorter is
// counted again whole.
func TestUsageReadsOnlyAppendedBytes(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(t.TempDir(), "catalog-claude-code.gob")
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	var b strings.Builder
	for i := range 200 {
		b.WriteString(usageLine("m"+itoa(i), "r"+itoa(i), 1))
	}
	write(t, p, b.String())
	count := func() (agent.FileUsage, int64) {
		c := &countingOpen{}
		r := New(dir).Sessions(agent.ReaderConfig{CachePath: cache, Open: c.open}).(*Reader)
		files, _, err := r.CountUsage(context.Background())
		if err != nil || len(files) != 1 {
			t.Fatal(files, err)
		}
		return files[0], c.n
	}
	f, n := count()
	if len(f.Records) != 200 || n < int64(b.Len()) {
		t.Fatalf("cold: %d records, %d bytes read", len(f.Records), n)
	}
	added := usageLine("m-new", "r-new", 5)
	appendTo(t, p, added)
	f, n = count()
	if len(f.Records) != 201 || f.Records[200].Input != 5 {
		t.Fatalf("warm: %d records", len(f.Records))
	}
	if n > int64(len(added))+4096 {
		t.Fatalf("warm count read %d bytes for %d appended", n, len(added))
	}
	write(t, p, usageLine("m0", "r0", 1)+usageLine("m-only", "r", 7))
	if f, _ = count(); len(f.Records) != 2 || f.Records[1].Input != 7 {
		t.Fatalf("rewritten: %+v", f.Records)
	}
}

// ccusage drops a response whose line has "id":null anywhere (a tool
// call's input, say): kept, marked, for the corrected count.
func TestUsageNullElsewhereIsAQuirk(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	write(t, p, `{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","requestId":"r","message":{"id":"m","model":"claude-sonnet-4-5-20250929",`+
		`"content":[{"type":"tool_use","input":{"id":null}}],"usage":{"input_tokens":5,"output_tokens":1}}}`+"\n"+
		`{"type":"assistant","timestamp":"2026-03-01T10:00:00Z","requestId":"r2","message":{"id":null,"usage":{"input_tokens":5,"output_tokens":1}}}`+"\n")
	for _, run := range []string{"cold", "warm (from the cache)"} {
		files, _ := countReader(t, dir, nil)
		if f := files[0]; len(f.Records) != 1 || !f.Records[0].Quirk || f.Skipped != 1 {
			t.Fatalf("%s: %+v", run, f)
		}
	}
}

// Keys are matched unescaped (as JSON.parse reads them): a line whose
// keys are written with escapes counts as the plain one.
func TestUsageEscapedKeys(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	write(t, p, `{"type":"assistant","time\u0073tamp":"2026-03-01T10:00:00Z","requestId":"r","message":{"id":"m","model":"claude-sonnet-4-5-20250929",`+
		`"usage":{"input\u005ftokens":5,"output_tokens":1}}}`+"\n")
	files, _ := countReader(t, dir, nil)
	if f := files[0]; len(f.Records) != 1 || f.Records[0].Input != 5 || f.Skipped != 0 {
		t.Fatalf("%+v", f)
	}
}

// A reader that only counts usage leaves the list's cache unread and
// keeps its counts beside it.
func TestUsageOnlyLeavesTheListCache(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "projects", "-w-p", "s1.jsonl"), usageLine("m", "r", 3))
	list := filepath.Join(t.TempDir(), "catalog-claude-code.gob")
	r := New(dir).Sessions(agent.ReaderConfig{CachePath: list, UsageOnly: true}).(*Reader)
	if r.Cache != nil {
		t.Fatal("the list's cache was opened")
	}
	if _, _, err := r.CountUsage(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filecache.UsagePath(list)); err != nil {
		t.Fatalf("no usage cache beside the list's: %v", err)
	}
}

// A message's content blocks (a line each, one message id and request)
// are kept as two records, the rest folded; counted in pieces — with a
// sidechain copy of the message arriving later, which unfolds it — the
// kept records count as the whole file's do.
func TestUsageFoldsContentBlocks(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(t.TempDir(), "catalog-claude-code.gob")
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	blocks := usageLine("m1", "r1", 1) + usageLine("m1", "r1", 1) + usageLine("m1", "r1", 9) + usageLine("m2", "r2", 4)
	write(t, p, blocks)
	count := func() agent.FileUsage {
		t.Helper()
		files, _, err := New(dir).Sessions(agent.ReaderConfig{CachePath: cache}).(*Reader).CountUsage(context.Background())
		if err != nil || len(files) != 1 {
			t.Fatal(files, err)
		}
		return files[0]
	}
	f := count()
	if len(f.Records) != 3 || f.Folded != 1 || f.Records[1].Input != 9 || !f.Records[1].Folded {
		t.Fatalf("folded %d: %+v", f.Folded, f.Records)
	}
	appendTo(t, p, usageLine("m1", "r1", 3))
	if f = count(); len(f.Records) != 3 || f.Folded != 2 {
		t.Fatalf("a fourth block: folded %d: %+v", f.Folded, f.Records)
	}
	side := strings.Replace(usageLine("m1", "r-side", 2), `"type":"assistant"`, `"type":"assistant","isSidechain":true`, 1)
	appendTo(t, p, side)
	if f = count(); len(f.Records) != 6 || f.Folded != 0 {
		t.Fatalf("unfolded by a sidechain copy: folded %d: %+v", f.Folded, f.Records)
	}
}

// A transcript of many copies of one response keeps its two records in
// an array of their size, not in that of every copy (folded in place, it
// held a cold count's memory: 71 MB at 10,000 generated sessions).
func TestUsageFoldedRecordsKeepNoSpareArray(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "projects", "-w-p", "s1.jsonl")
	write(t, p, strings.Repeat(usageLine("m1", "r1", 1), 1000))
	files, _, err := New(dir).Sessions(agent.ReaderConfig{CachePath: filepath.Join(t.TempDir(), "c.gob")}).(*Reader).CountUsage(context.Background())
	if err != nil || len(files) != 1 {
		t.Fatal(files, err)
	}
	if recs := files[0].Records; len(recs) != 2 || cap(recs) > 4 {
		t.Errorf("%d records in an array of %d", len(recs), cap(recs))
	}
}

// The archive's copies listed are those whose originals are gone,
// whether or not the live listing is given (with it, an original among
// the live files is not stat'ed): not one still there, as a transcript or
// as anything else (a link).
func TestArchivedUsageFilesOriginalsGone(t *testing.T) {
	dir, archive := t.TempDir(), t.TempDir()
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(usageLine("m", "r", 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"live", "gone", "link"} {
		write(filepath.Join(archive, "projects", "-w-p", name+".jsonl"))
	}
	write(filepath.Join(dir, "projects", "-w-p", "live.jsonl"))
	if err := os.Symlink("live.jsonl", filepath.Join(dir, "projects", "-w-p", "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	r := New(dir).Sessions(agent.ReaderConfig{}).(*Reader)
	live, _, err := r.UsageFiles(context.Background(), "", nil)
	if err != nil || len(live) != 1 {
		t.Fatalf("live: %v %+v", err, live)
	}
	for _, given := range [][]agent.FileUsage{nil, live} {
		copies, _, err := r.UsageFiles(context.Background(), archive, given)
		if err != nil || len(copies) != 1 || filepath.Base(copies[0].Path) != "gone.jsonl" {
			t.Errorf("live given %v: %v %+v, want only gone.jsonl", given != nil, err, copies)
		}
	}
}

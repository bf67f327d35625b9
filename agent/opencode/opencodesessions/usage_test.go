package opencodesessions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

func countUsage(t *testing.T, r agent.Reader) ([]agent.FileUsage, []agent.Diagnostic) {
	t.Helper()
	uc, ok := r.(agent.UsageCounter)
	if !ok {
		t.Fatalf("%T counts no usage", r)
	}
	files, diags, err := uc.CountUsage(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return files, diags
}

// sums are a session's tokens as the session row keeps them: input,
// output, reasoning, cache read, cache write.
func sums(f agent.FileUsage) [5]int64 {
	var s [5]int64
	for _, r := range f.Records {
		s[0] += r.Input
		s[1] += r.Output - r.Reasoning
		s[2] += r.Reasoning
		s[3] += r.CacheRead
		s[4] += r.CacheWrite
	}
	return s
}

// Each assistant message of the real sample is a record (the compaction's
// summary too: it cost tokens), its cost OpenCode's; a session's records
// add up to the running totals of its session row, which `opencode
// stats` sums.
func TestUsageFromMessages(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	files, diags := countUsage(t, reader(data))
	if len(diags) != 0 || len(files) != 2 {
		t.Fatalf("%d sessions counted, diags %v", len(files), diags)
	}
	var s agent.FileUsage
	for _, f := range files {
		if f.Session == sessiontest.SampleOpenCode {
			s = f
		}
	}
	if s.Harness != agent.OpenCode || s.Project != "/home/example/proj" || len(s.Records) != 5 || s.Skipped != 0 {
		t.Fatalf("sample session: %+v", s)
	}
	if got := sums(s); got != [5]int64{715, 265, 0, 5000, 0} {
		t.Errorf("sums %v, want the session row's 715 265 0 5000 0", got)
	}
	r := s.Records[0]
	if r.Model != "fake-model" || !r.HasCost || r.Key == 0 || r.Time != 1796150687817 || r.Input != 141 || r.Output != 51 || r.CacheRead != 1000 {
		t.Errorf("first record: %+v", r)
	}
}

// A warm count reads nothing of the database while it is unchanged: the
// database is overwritten with bytes that are no database (size and
// mtime kept) and the count is the same; written, it is counted again.
func TestWarmUsageReadsNoDatabase(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(path, old, old)
	cache := filepath.Join(t.TempDir(), "catalog-opencode.gob")
	r := func() agent.Reader {
		return opencodesessions.New(data, "").Sessions(agent.ReaderConfig{CachePath: cache})
	}
	cold, _ := countUsage(t, r())
	if _, err := os.Stat(filepath.Join(filepath.Dir(cache), "catalog-opencode-usage.gob")); err != nil {
		t.Fatalf("no usage cache: %v", err)
	}
	good, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Repeat("x", len(good))), 0o644)
	os.Chtimes(path, old, old)
	warm, diags := countUsage(t, r())
	if len(diags) != 0 || len(warm) != len(cold) || sums(warm[0]) != sums(cold[0]) || sums(warm[1]) != sums(cold[1]) {
		t.Fatalf("warm: %+v %v, cold %+v", warm, diags, cold)
	}
	os.WriteFile(path, good, 0o644)
	exec(t, path, `UPDATE message SET data = json_set(data, '$.tokens.input', 1000141) WHERE id = 'msg_232ec78490014pQ5RJttnm3JX6'`)
	again, _ := countUsage(t, r())
	for _, f := range again {
		if f.Session == sessiontest.SampleOpenCode && sums(f)[0] != 715+1000000 {
			t.Errorf("after a write: %v", sums(f))
		}
	}
}

// A message whose data is not JSON is a skipped record, not a failed
// count.
func TestUsageBrokenMessage(t *testing.T) {
	data := t.TempDir()
	path := sessiontest.OpenCodeDB(t, data)
	exec(t, path, `UPDATE message SET data = '{"role":"assistant",' WHERE id = 'msg_232ec78490014pQ5RJttnm3JX6'`)
	files, diags := countUsage(t, reader(data))
	for _, f := range files {
		if f.Session == sessiontest.SampleOpenCode && (f.Skipped != 1 || len(f.Records) != 4) {
			t.Errorf("skipped %d, %d records", f.Skipped, len(f.Records))
		}
	}
	if len(diags) != 0 {
		t.Errorf("diags %v", diags)
	}
}

// The archive's export of a session OpenCode deleted counts as the
// database counted it; one of a session the database still has is not
// read.
func TestArchivedExportUsage(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	live, _ := countUsage(t, reader(data))
	var want agent.FileUsage
	for _, f := range live {
		if f.Session == sessiontest.SampleOpenCode {
			want = f
		}
	}
	dir := t.TempDir()
	stored := filepath.Join(dir, sessiontest.SampleOpenCode+".json")
	os.WriteFile(stored, sessiontest.Sample(t, "opencode-1.18.33", "sample-opencode-export.json"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an export"), 0o600)
	ac := archiveReader(filepath.Join(t.TempDir(), "catalog-archive-opencode.gob")).(agent.ArchiveUsageCounter)
	got, diags, err := ac.CountArchivedUsage(context.Background(), dir, live)
	if err != nil || len(got) != 0 || len(diags) != 0 {
		t.Fatalf("with the session live: %+v %v %v", got, diags, err)
	}
	for range 2 { // the second from the cache
		got, diags, err = ac.CountArchivedUsage(context.Background(), dir, nil)
		if err != nil || len(diags) != 0 || len(got) != 1 {
			t.Fatalf("deleted: %+v %v %v", got, diags, err)
		}
		g := got[0]
		if g.Path != stored || g.Session != want.Session || g.Project != want.Project || sums(g) != sums(want) || len(g.Records) != len(want.Records) {
			t.Fatalf("archived %+v\nlive %+v", g, want)
		}
		for i := range g.Records {
			if g.Records[i] != want.Records[i] {
				t.Errorf("record %d: archived %+v, live %+v", i, g.Records[i], want.Records[i])
			}
		}
	}
}

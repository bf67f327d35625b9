package opencodesessions_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

type describer interface {
	Describe(path string) (agent.Session, string)
	SaveCache() error
}

// archiveReader is the reader of tether's archive (Open set), over plain
// files.
func archiveReader(cache string) agent.Reader {
	return opencodesessions.New("", "").Sessions(agent.ReaderConfig{Open: agent.OSOpen, CachePath: cache})
}

// OpenCode's own export of the real sample session reads as the same
// session as its database rows: listed (Describe) and shown (Get). The
// archive's reader listed nothing for OpenCode before.
func TestArchivedExportReadsAsTheDatabase(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	m, _ := list(t, reader(data), false)
	want := m[sessiontest.SampleOpenCode]
	wantFull, err := reader(data).Get(context.Background(), want)
	if err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(t.TempDir(), sessiontest.SampleOpenCode+".json")
	if err := os.WriteFile(path, sessiontest.Sample(t, "opencode-1.18.33", "sample-opencode-export.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := archiveReader(filepath.Join(t.TempDir(), "cache.json"))
	d, ok := r.(describer)
	if !ok {
		t.Fatalf("the archive's OpenCode reader %T describes no stored file", r)
	}
	got, why := d.Describe(path)
	if why != "" {
		t.Fatalf("describe: %s", why)
	}
	if got.Source != path {
		t.Errorf("source %q, want the stored file", got.Source)
	}
	got.Source, want.Source = "", ""
	if !reflect.DeepEqual(got, want) {
		t.Errorf("described:\n%+v\nlisted from the database:\n%+v", got, want)
	}
	got.Source = path
	full, err := r.Get(context.Background(), got)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full.Counts, wantFull.Counts) || !reflect.DeepEqual(full.RecentPrompts, wantFull.RecentPrompts) ||
		!reflect.DeepEqual(full.ContextCurve, wantFull.ContextCurve) || full.FirstPrompt != wantFull.FirstPrompt {
		t.Errorf("get: counts %+v prompts %q curve %v\nwant counts %+v prompts %q curve %v",
			full.Counts, full.RecentPrompts, full.ContextCurve, wantFull.Counts, wantFull.RecentPrompts, wantFull.ContextCurve)
	}
}

// A listing reads an unchanged export from the cache, not again; a
// changed one is read again.
func TestArchivedDescribeCache(t *testing.T) {
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "cache.json")
	path := filepath.Join(dir, sessiontest.SampleOpenCode+".json")
	sample := sessiontest.Sample(t, "opencode-1.18.33", "sample-opencode-export.json")
	if err := os.WriteFile(path, sample, 0o600); err != nil {
		t.Fatal(err)
	}
	r := archiveReader(cache).(describer)
	first, why := r.Describe(path)
	if why != "" {
		t.Fatal(why)
	}
	if err := r.SaveCache(); err != nil {
		t.Fatal(err)
	}
	// Other bytes of the same size and mtime: the cache answers (the
	// file is not read again).
	fi, _ := os.Stat(path)
	other := bytes.Repeat([]byte(" "), len(sample))
	if err := os.WriteFile(path, other, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	again, why := archiveReader(cache).(describer).Describe(path)
	if why != "" || again.ID != first.ID || again.Title != first.Title {
		t.Fatalf("cached describe: %q %+v", why, again)
	}
	// Another mtime: read again, and found not to be an export.
	os.Chtimes(path, fi.ModTime().Add(time.Second), fi.ModTime().Add(time.Second))
	if _, why := archiveReader(cache).(describer).Describe(path); why == "" {
		t.Errorf("a changed export was answered from the cache")
	}
}

// A stored file that is not an export is a reason, not a session.
func TestArchivedNotAnExport(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.json": "not json", "b.json": `{"info":{"id":"ses_x"}}`, "c.json": `[]`} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		if s, why := archiveReader("").(describer).Describe(p); why == "" {
			t.Errorf("%s (%s): described as %+v", name, body, s)
		}
	}
}

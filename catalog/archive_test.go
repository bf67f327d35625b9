package catalog

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// archiveCatalog builds a catalog over a Claude home and a Codex home (with
// its state DB) whose every transcript has been archived in mode.
func archiveCatalog(t *testing.T, mode string) (*Catalog, string, string, string) {
	t.Helper()
	claudeDir := sessiontest.ClaudeHome(t)
	codexDir, rollout := sessiontest.CodexHome(t, true)
	store := &archive.Store{Dir: filepath.Join(t.TempDir(), "archive"), Mode: mode}
	cache := t.TempDir()
	ac := ArchiveCacheFiles(cache)
	c := &Catalog{
		Readers: []Reader{&claudesessions.Reader{Dir: claudeDir}, &codexsessions.Reader{Dir: codexDir}},
		Archive: &Archive{Sources: []ArchiveSource{
			{Dir: store.HarnessDir(ClaudeCode), Root: claudeDir, Reader: &claudesessions.Reader{Open: ArchiveOpen, Cache: claudesessions.OpenCache(ac[0])}},
			{Dir: store.HarnessDir(Codex), Root: codexDir, Reader: &codexsessions.Reader{Open: ArchiveOpen, Cache: codexsessions.OpenCache(ac[1])}},
		}},
	}
	roots := map[string]string{ClaudeCode: claudeDir, Codex: codexDir}
	c.Archive.Sync = func(live []Session) []Synced {
		out := make([]Synced, len(live))
		for i, s := range live {
			res, err := store.Archive(archive.Source{Harness: s.Harness, ID: s.ID, Root: roots[s.Harness], Path: s.Source})
			if err != nil && !os.IsNotExist(err) {
				t.Errorf("archive %s: %v", s.Source, err)
			}
			out[i] = Synced{OK: err == nil || os.IsNotExist(err), Linked: res.Linked || os.IsNotExist(err), MTime: res.LiveMTime.UnixNano()}
		}
		return out
	}
	return c, claudeDir, codexDir, rollout
}

func byKey(ss []Session) map[string]Session {
	m := map[string]Session{}
	for _, s := range ss {
		if _, dup := m[s.Key()]; dup {
			panic("listed twice: " + s.Key())
		}
		m[s.Key()] = s
	}
	return m
}

func TestCatalogArchivedState(t *testing.T) {
	for _, mode := range []string{archive.ModeLink, archive.ModeCopy} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			c, claudeDir, _, rollout := archiveCatalog(t, mode)
			all, diags, err := c.List(ctx, ListOptions{})
			if err != nil || len(diags) != 0 {
				t.Fatalf("list: %v %v", err, diags)
			}
			before := byKey(all)
			if len(before) != 3 {
				t.Fatalf("want 3 sessions listed once each, got %d", len(all))
			}
			for _, s := range all {
				if s.State == StateArchived {
					t.Fatalf("%s archived while live", s.Key())
				}
			}
			// The cleanup unlinks both live files.
			claudeFile := filepath.Join(claudeDir, "projects", "-home-example-src-proj", sessiontest.Sample21332+".jsonl")
			os.Remove(claudeFile)
			os.Remove(rollout)
			all, diags, err = c.List(ctx, ListOptions{})
			if err != nil || len(diags) != 0 {
				t.Fatalf("list: %v %v", err, diags)
			}
			after := byKey(all)
			if len(after) != 3 {
				t.Fatalf("after unlink: %d sessions", len(after))
			}
			for _, key := range []string{ClaudeCode + ":" + sessiontest.Sample21332, Codex + ":" + sessiontest.SampleCodex} {
				s, b := after[key], before[key]
				if s.State != StateArchived || s.Archive == nil {
					t.Fatalf("%s: state %s archive %+v", key, s.State, s.Archive)
				}
				if s.Archive.Compressed != (mode == archive.ModeCopy) {
					t.Errorf("%s: compressed = %v in %s mode", key, s.Archive.Compressed, mode)
				}
				if s.Title != b.Title || s.Cwd != b.Cwd || !s.LastActivity.Equal(b.LastActivity) && s.Harness == ClaudeCode {
					t.Errorf("%s: details differ from the live listing: %q %q vs %q %q", key, s.Title, s.Cwd, b.Title, b.Cwd)
				}
				if s.Resume.Argv[len(s.Resume.Argv)-1] != s.ID {
					t.Errorf("%s: resume %v", key, s.Resume.Argv)
				}
				full, err := c.Get(ctx, s)
				if err != nil || full.Counts == nil || full.Counts.HumanPrompts == 0 || full.State != StateArchived || full.Archive == nil {
					t.Fatalf("%s: show from the archive: %v %+v", key, err, full.Counts)
				}
			}
			if got := after[ClaudeCode+":"+sessiontest.Sample21332].Archive.Restore; got != claudeFile {
				t.Errorf("restore path %s, want %s", got, claudeFile)
			}
			if got := after[Codex+":"+sessiontest.SampleCodex].Archive.Restore; got != rollout {
				t.Errorf("restore path %s, want %s", got, rollout)
			}
			if s := after[ClaudeCode+":"+sessiontest.Sample2177]; s.State != StateResumable {
				t.Errorf("live session state %s", s.State)
			}
			// Search reads archived transcripts too.
			res := Search(ctx, all, "tool_bash", SearchOptions{Open: ArchiveOpen})
			found := false
			for _, r := range res {
				found = found || r.Session.Key() == Codex+":"+sessiontest.SampleCodex
			}
			if !found {
				t.Errorf("search did not find the archived codex session: %d results", len(res))
			}
			if _, err := Resolve(all, sessiontest.Sample21332[:8]); err != nil {
				t.Errorf("resolve archived: %v", err)
			}
		})
	}
}

// A live file its reader cannot list (corrupted) does not hide the good
// archived copy: the session is listed archived (once), and a restore
// refuses to replace the file in the way.
func TestArchivedCopyOfUnlistableLiveFileIsListed(t *testing.T) {
	c, claudeDir, _, _ := archiveCatalog(t, archive.ModeCopy)
	junk := filepath.Join(claudeDir, "projects", "-home-example-src-proj", sessiontest.Sample21332+".jsonl")
	if _, _, err := c.List(context.Background(), ListOptions{}); err != nil {
		t.Fatal(err)
	}
	sessiontest.WriteFile(t, junk, []byte("not json\n"))
	all, diags, err := c.List(context.Background(), ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := byKey(all)[ClaudeCode+":"+sessiontest.Sample21332]
	if s.State != StateArchived || s.Archive == nil || s.Archive.Restore != junk {
		t.Errorf("state %s archive %+v", s.State, s.Archive)
	}
	if len(diags) != 1 || diags[0].Path != junk {
		t.Errorf("diagnostics %v", diags)
	}
}

// ArchiveOpen gives a plain file as it is, one shorter than the zstd
// magic or empty included (its first bytes, read to tell, are not
// consumed), and a missing one's error.
func TestArchiveOpenPlainFiles(t *testing.T) {
	dir := t.TempDir()
	for _, content := range []string{"", "{", "{}\n", "{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n"} {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := ArchiveOpen(p)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		got, err := io.ReadAll(f)
		fi, serr := f.Stat()
		f.Close()
		if err != nil || serr != nil || string(got) != content || fi.Size() != int64(len(content)) {
			t.Errorf("%q: read %q (%v), size %v (%v)", content, got, err, fi, serr)
		}
	}
	if _, err := ArchiveOpen(filepath.Join(dir, "missing.jsonl")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

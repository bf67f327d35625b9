package catalog

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// skipRig is a catalog over one Claude project of three transcripts whose
// archive records what it synced, as `tether sessions` sets it up.
type skipRig struct {
	t      *testing.T
	c      *Catalog
	store  *archive.Store
	home   string // CLAUDE_CONFIG_DIR
	proj   string // the live project directory
	ids    []string
	synced int // sessions the last listing gave Sync
}

func newSkipRig(t *testing.T, mode string, t0 time.Time) *skipRig {
	t.Helper()
	home, proj, ids := dirSkipHome(t, t0)
	rg := &skipRig{t: t, home: home, proj: proj, ids: ids,
		store: &archive.Store{Dir: filepath.Join(t.TempDir(), "archive"), Mode: mode}}
	ac := ArchiveCacheFiles(t.TempDir())
	rg.c = &Catalog{
		Readers: []Reader{&claudesessions.Reader{Dir: home, Procs: sessiontest.Procs{}}},
		Archive: &Archive{
			Sources: []ArchiveSource{{Dir: rg.store.HarnessDir(ClaudeCode), Root: home,
				Reader: &claudesessions.Reader{Open: ArchiveOpen, Cache: claudesessions.OpenCache(ac[0])}}},
			SyncKey: rg.store.Dir + "\x00" + mode,
			State:   ac[2],
		},
	}
	rg.c.Archive.Sync = func(live []Session) []Synced {
		rg.synced = len(live)
		out := make([]Synced, len(live))
		for i, s := range live {
			res, err := rg.store.Archive(archive.Source{Harness: s.Harness, ID: s.ID, Root: home, Path: s.Source})
			if err != nil {
				t.Errorf("archive %s: %v", s.Source, err)
				continue
			}
			out[i] = Synced{OK: true, Linked: res.Linked, MTime: res.LiveMTime.UnixNano()}
		}
		return out
	}
	return rg
}

// list lists and returns the sessions by id.
func (rg *skipRig) list() map[string]Session {
	rg.t.Helper()
	rg.synced = 0
	all, diags, err := rg.c.List(context.Background(), ListOptions{})
	if err != nil {
		rg.t.Fatal(err)
	}
	for _, d := range diags {
		rg.t.Logf("diagnostic: %v", d)
	}
	m := map[string]Session{}
	for _, s := range all {
		m[s.ID] = s
	}
	return m
}

// age sets the mtime of every directory under the live data and the
// archive an hour back, as if they had last changed then; a listing after
// it records them as current.
func (rg *skipRig) age() {
	rg.t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, root := range []string{rg.home, rg.store.Dir} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				sessiontest.SetMTime(rg.t, p, old)
			}
			return nil
		})
	}
}

// settle lists until the archive has recorded everything as current:
// the first listing archives, the next (with aged directories) records.
func (rg *skipRig) settle() {
	rg.t.Helper()
	rg.list()
	rg.age()
	rg.list()
	if rg.list(); rg.synced != 0 {
		rg.t.Fatalf("an unchanged history still gave Sync %d sessions", rg.synced)
	}
}

func (rg *skipRig) live(i int) string { return filepath.Join(rg.proj, rg.ids[i]+".jsonl") }

func (rg *skipRig) stored(i int) string {
	p, err := rg.store.StoredPath(archive.Source{Harness: ClaudeCode, Root: rg.home, Path: rg.live(i)})
	if err != nil {
		rg.t.Fatal(err)
	}
	return p
}

// storedBytes is the transcript as archived (decompressed in copy mode).
func (rg *skipRig) storedBytes(i int) []byte {
	rg.t.Helper()
	var b bytes.Buffer
	if archive.IsCompressed(rg.stored(i)) {
		if _, err := archive.Decompress(&b, rg.stored(i)); err != nil {
			rg.t.Fatal(err)
		}
		return b.Bytes()
	}
	data, err := os.ReadFile(rg.stored(i))
	if err != nil {
		rg.t.Fatal(err)
	}
	return data
}

func (rg *skipRig) wantCurrent(i int) {
	rg.t.Helper()
	live, err := os.ReadFile(rg.live(i))
	if err != nil {
		rg.t.Fatal(err)
	}
	if got := rg.storedBytes(i); !bytes.Equal(got, live) {
		rg.t.Fatalf("archived %s is %d bytes, live %d", rg.ids[i], len(got), len(live))
	}
}

// A listing where nothing changed gives Sync nothing; each kind of change
// still reaches the archive by the next listing.
func TestArchiveSyncSkipsOnlyUnchangedDirs(t *testing.T) {
	rg := newSkipRig(t, archive.ModeLink, time.Now().Add(-time.Hour).UTC())
	rg.settle()

	// An append (in place: the directory's mtime stays) needs nothing in
	// link mode: the link is the live file.
	appendPrompt(t, rg.live(0), rg.ids[0], time.Now())
	if rg.list(); rg.synced != 0 {
		t.Errorf("an append in link mode gave Sync %d sessions", rg.synced)
	}
	rg.wantCurrent(0)

	// A new transcript.
	newID := "99999999-1111-2222-3333-444444444444"
	rg.ids = append(rg.ids, newID)
	sessiontest.WriteFile(t, rg.live(3), sessiontest.JSONLines(sessiontest.UserRec(newID, "/home/example/src/p", time.Now().Format(time.RFC3339Nano), "new", nil)))
	rg.list()
	rg.wantCurrent(3)

	// A transcript replaced by a new inode (a trim: temporary file and
	// rename) is linked again.
	rg.age()
	rg.list()
	tmp := rg.live(1) + ".tmp"
	sessiontest.WriteFile(t, tmp, sessiontest.JSONLines(sessiontest.UserRec(rg.ids[1], "/home/example/src/p", time.Now().Format(time.RFC3339Nano), "trimmed", nil)))
	if err := os.Rename(tmp, rg.live(1)); err != nil {
		t.Fatal(err)
	}
	rg.list()
	a, _ := os.Stat(rg.live(1))
	b, _ := os.Stat(rg.stored(1))
	if !os.SameFile(a, b) {
		t.Fatal("a replaced transcript was not linked again")
	}

	// A stored file removed behind tether's back is archived again.
	rg.age()
	rg.list()
	if err := os.Remove(rg.stored(2)); err != nil {
		t.Fatal(err)
	}
	rg.list()
	rg.wantCurrent(2)

	// A deleted live transcript is listed from the archive, whose
	// directory did not change (its record is used).
	rg.age()
	rg.list()
	os.Remove(rg.live(0))
	got := rg.list()
	if s := got[rg.ids[0]]; s.State != StateArchived || s.Archive == nil || s.Archive.Path != rg.stored(0) {
		t.Fatalf("deleted transcript: state %q archive %+v", s.State, s.Archive)
	}
}

// A file that only becomes listable later, without any directory change
// (a transcript rewritten in place), is archived by the next listing.
func TestArchiveSyncSeesNewlyListableFile(t *testing.T) {
	rg := newSkipRig(t, archive.ModeLink, time.Now().Add(-time.Hour).UTC())
	good, err := os.ReadFile(rg.live(2))
	if err != nil {
		t.Fatal(err)
	}
	sessiontest.WriteFile(t, rg.live(2), []byte("not json yet\n"))
	rg.settle()
	if _, err := os.Stat(rg.stored(2)); err == nil {
		t.Fatal("an unlistable transcript was archived")
	}
	old, _ := os.Stat(rg.proj)
	sessiontest.WriteFile(t, rg.live(2), good) // in place: same inode
	sessiontest.SetMTime(t, rg.proj, old.ModTime())
	rg.list()
	rg.wantCurrent(2)
}

// Copy mode: an append must be compressed; a directory whose transcripts
// were all written more than a day ago is skipped as the catalog's own
// directory skip does.
func TestArchiveSyncCopyModeAppends(t *testing.T) {
	rg := newSkipRig(t, archive.ModeCopy, time.Now().Add(-time.Hour).UTC())
	rg.list()
	rg.age()
	rg.list()
	// The transcripts were written just now: an append does not change
	// the directory, so every listing looks at each file.
	appendPrompt(t, rg.live(0), rg.ids[0], time.Now())
	if rg.list(); rg.synced != 3 {
		t.Errorf("a recently written copy-mode directory gave Sync %d sessions, want 3", rg.synced)
	}
	rg.wantCurrent(0)

	// Idle for two days: no listing looks at the files.
	idle := time.Now().Add(-48 * time.Hour)
	for i := range rg.ids {
		sessiontest.SetMTime(t, rg.live(i), idle)
	}
	rg.list() // a copy records the mtime: the new one is copied again
	rg.age()
	rg.list()
	if rg.list(); rg.synced != 0 {
		t.Errorf("an idle copy-mode directory gave Sync %d sessions", rg.synced)
	}
}

// With the archive's directory or mode changed, nothing recorded for the
// previous one is trusted.
func TestArchiveSyncKeyChange(t *testing.T) {
	rg := newSkipRig(t, archive.ModeLink, time.Now().Add(-time.Hour).UTC())
	rg.settle()
	rg.c.Archive.SyncKey += "-other"
	if rg.list(); rg.synced != 3 {
		t.Errorf("after a key change Sync got %d sessions, want 3", rg.synced)
	}
	// A listing that does not sync (archive disabled) keeps the records.
	sync := rg.c.Archive.Sync
	rg.age()
	rg.list()
	rg.c.Archive.Sync = nil
	rg.list()
	rg.c.Archive.Sync = sync
	if rg.list(); rg.synced != 0 {
		t.Errorf("a listing without sync dropped the records: Sync got %d", rg.synced)
	}
}

// A file linked into the archive by someone else (a hook) is seen by the
// archive listing: its directory's mtime changed.
func TestArchiveWalkSeesNewStoredFiles(t *testing.T) {
	rg := newSkipRig(t, archive.ModeLink, time.Now().Add(-time.Hour).UTC())
	rg.settle()
	other := filepath.Join(rg.home, "projects", "-home-example-src-q")
	id := "88888888-1111-2222-3333-444444444444"
	live := filepath.Join(other, id+".jsonl")
	sessiontest.WriteFile(t, live, sessiontest.JSONLines(sessiontest.UserRec(id, "/home/example/src/q", time.Now().Format(time.RFC3339Nano), "hooked", nil)))
	hook := &archive.Store{Dir: rg.store.Dir, LinkOnly: true}
	if _, err := hook.Archive(archive.Source{Harness: ClaudeCode, ID: id, Root: rg.home, Path: live}); err != nil {
		t.Fatal(err)
	}
	os.Remove(live)
	if s := rg.list()[id]; s.State != StateArchived {
		t.Fatalf("hook-archived session: state %q", s.State)
	}
}

// A listing that does not show a directory's sessions (Codex's archived
// threads without --all) keeps its record: the next listing that shows
// them does not sync them all again.
func TestArchiveSyncKeepsRecordsOfUnlistedDirs(t *testing.T) {
	rg := newSkipRig(t, archive.ModeLink, time.Now().Add(-time.Hour).UTC())
	rg.settle()
	readers := rg.c.Readers
	rg.c.Readers = nil
	rg.list()
	rg.c.Readers = readers
	if rg.list(); rg.synced != 0 {
		t.Errorf("after a listing without them, Sync got %d sessions", rg.synced)
	}
}

// The records are decoded from the mapped file and the mapping dropped:
// what was loaded stays intact when the file is then replaced.
func TestArchiveStateLoadedRecordsOutliveTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.gob")
	st := loadArchiveState(path, "key")
	hs := st.harness(ClaudeCode)
	hs.Walked["/home/example/archive/p"] = walkedDir{MTime: 1, Checked: time.Now().UnixNano(), Entries: []string{"a.jsonl", "sub/"}}
	st.seen["w\x00/home/example/archive/p"] = true
	st.dirty = true
	if err := st.save([]string{ClaudeCode}); err != nil {
		t.Fatal(err)
	}
	got := loadArchiveState(path, "key")
	if err := os.WriteFile(path, bytes.Repeat([]byte{0xff}, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	w := got.Harness[ClaudeCode].Walked["/home/example/archive/p"]
	if got.SyncKey != "key" || w.MTime != 1 || !slices.Equal(w.Entries, []string{"a.jsonl", "sub/"}) {
		t.Errorf("loaded: key %q, %+v", got.SyncKey, w)
	}
	if again := loadArchiveState(path, "key"); len(again.Harness) != 0 {
		t.Errorf("garbage loaded as records: %+v", again.Harness)
	}
}

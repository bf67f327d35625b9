package catalog

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/archive"
	"github.com/tether-dev/tether/internal/atomicfile"

	"github.com/tether-dev/tether/internal/safeio"
)

// The archive's part of a warm listing costs one stat per directory, not
// two per transcript, when nothing changed. Two records make that safe,
// kept in Archive.State (a cache: losing it costs one full pass):
//
// Synced, per live transcript directory: the state in which every listed
// transcript in it was last brought up to date (Archive.Sync reported
// each one current). A listing passes a directory's sessions to Sync
// again unless all of these hold:
//   - the live directory's mtime is the recorded one: no transcript was
//     created, removed, renamed or replaced by a new inode since (a trim,
//     Claude Code's cleanup, a restore all change it);
//   - the archive directory's mtime is the recorded one (taken after the
//     sync): nothing was linked, removed or replaced there since;
//   - the listing found the same transcripts there (names compared by a
//     hash and a count): a file that only now became listable is synced;
//   - the record is less than scan.DirRecheck old (a full pass an hour, so a
//     change no mtime shows, such as a directory restored from a backup
//     with its old mtime, is caught within the hour);
//   - every stored file of the directory is a hard link (an append to a
//     live file is then already in the archive), or, for copies, the
//     newest transcript was last written more than scan.DirHotWindow ago and
//     the session is not running: the catalog's own directory skip (see
//     ClaudeReader), so a copy is as current as the listing shows.
//
// No record is made when a mtime is within scan.DirRacyWindow of the pass (a
// change in the same clock tick would look like none), or when a session
// of the directory failed or was left for later (copy budget).
//
// Walked, per archive directory: its mtime, subdirectories and files, so
// listing archived sessions re-reads only directories whose mtime
// changed (same racy window and hourly recheck).
type archiveState struct {
	Version int
	// SyncKey is Archive.SyncKey when Synced was recorded: records made
	// for another archive directory or mode are not trusted.
	SyncKey string
	// Harness holds each harness's records, so a listing of one harness
	// drops none of another's.
	Harness map[string]*harnessState

	path    string
	syncing bool            // this listing syncs: it owns the Synced records
	seen    map[string]bool // "s\x00"+dir or "w\x00"+dir used this listing
	dirty   bool
	// walkedAt is each archive directory's mtime as the walk read it
	// (before the sync): the sync's check of a stored directory takes it
	// instead of a stat of its own (~300 a warm list at 10,000 sessions).
	// A change after the walk's stat shows in the next listing's.
	walkedAt map[string]int64
}

type harnessState struct {
	Synced map[string]syncedDir
	Walked map[string]walkedDir
}

// syncedDir is a live directory whose listed transcripts were all current
// in the archive.
type syncedDir struct {
	// Live is the live directory's mtime before the sync, Stored the
	// archive directory's after it (UnixNano).
	Live, Stored int64
	// Checked is when the sync started.
	Checked int64
	// Newest is the newest mtime among the live transcripts.
	Newest int64
	// Linked: every stored file is a hard link to its live file.
	Linked bool
	// Names and N identify the set of listed transcripts (an
	// order-independent hash of their names, and their number).
	Names uint64
	N     int
}

// walkedDir is what reading an archive directory found.
type walkedDir struct {
	MTime, Checked int64
	// Entries are its subdirectories (with a trailing "/") and regular
	// files, in name order.
	Entries []string
}

// archiveStateVersion changes with the shape or meaning of the records.
const archiveStateVersion = 1

// loadArchiveState reads the records at path; a missing, unreadable or
// outdated file gives empty records. syncKey "" is a listing that does
// not sync (the archive is disabled): it leaves the Synced records alone.
func loadArchiveState(path, syncKey string) *archiveState {
	st := &archiveState{path: path, seen: map[string]bool{}, syncing: syncKey != ""}
	// A FIFO or a link planted as the file is not read.
	if data, err := safeio.ReadOwn(path); err == nil {
		var f archiveState
		if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil && f.Version == archiveStateVersion {
			st.SyncKey, st.Harness = f.SyncKey, f.Harness
		}
	}
	if st.Harness == nil {
		st.Harness = map[string]*harnessState{}
	}
	if st.syncing && st.SyncKey != syncKey {
		for _, h := range st.Harness {
			h.Synced = nil
		}
		st.SyncKey, st.dirty = syncKey, true
	}
	return st
}

func (st *archiveState) harness(h string) *harnessState {
	hs := st.Harness[h]
	if hs == nil {
		hs = &harnessState{}
		st.Harness[h] = hs
	}
	if hs.Synced == nil {
		hs.Synced = map[string]syncedDir{}
	}
	if hs.Walked == nil {
		hs.Walked = map[string]walkedDir{}
	}
	return hs
}

// syncedKeep is how long the record of a live directory no listing has
// shown is kept: a listing without --all does not show Codex's archived
// threads, and the next one with it should not sync them all again.
const syncedKeep = 7 * 24 * time.Hour

// save drops the records of archive directories the walk no longer found
// and of live directories no listing showed for syncedKeep, and writes the
// file when something changed (0600: it names project directories). It is
// a cache: no fsync.
func (st *archiveState) save(listed []string) error {
	if st.path == "" {
		return nil
	}
	now := time.Now().UnixNano()
	for _, hs := range st.Harness {
		for d, rec := range hs.Synced {
			if !st.seen["s\x00"+d] && now-rec.Checked > int64(syncedKeep) {
				delete(hs.Synced, d)
				st.dirty = true
			}
		}
	}
	for _, h := range listed {
		hs := st.harness(h)
		for d := range hs.Walked {
			if !st.seen["w\x00"+d] {
				delete(hs.Walked, d)
				st.dirty = true
			}
		}
	}
	if !st.dirty {
		return nil
	}
	st.Version = archiveStateVersion
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(st); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(st.path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(st.path, buf.Bytes(), atomicfile.Options{Perm: 0o600, NoSync: true}); err != nil {
		return err
	}
	st.dirty = false
	return nil
}

// syncGroup is the listed sessions of one live directory.
type syncGroup struct {
	harness string
	live    string // the live directory
	stored  string // its archive directory
	idx     []int  // into the listing
	names   uint64
	running bool
	// liveMTime is the live directory's mtime before the sync; ok false
	// when it could not be read.
	liveMTime int64
	ok        bool
}

// nameHash is an order-independent hash of a set of names: the sum of
// each name's FNV-1a.
func nameHash(name string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a, without hash/fnv's allocations
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// groupByDir groups the live sessions each source archives by their live
// directory; the rest (an unknown harness, a file outside its root) are
// returned as loose indexes, for Sync to see every time.
func (a *Archive) groupByDir(live []Session) (groups []*syncGroup, loose []int) {
	type key struct{ harness, dir string } // substrings: no allocation
	byDir := map[key]*syncGroup{}
	var (
		lastKey key
		last    *syncGroup
		sp      scan.PathSplitter
	)
	for i := range live {
		s := &live[i]
		if s.State == StateArchived || s.Source == "" {
			continue
		}
		dir, name := sp.Split(s.Source)
		k := key{s.Harness, dir}
		// A reader lists a directory's sessions together: the last
		// group saves most of 10,000 lookups of two-string keys.
		g := last
		if g == nil || k != lastKey {
			g = byDir[k]
		}
		if g == nil {
			g = a.newGroup(k.harness, k.dir)
			if g == nil {
				loose = append(loose, i)
				continue
			}
			byDir[k] = g
			groups = append(groups, g)
		}
		lastKey, last = k, g
		g.idx = append(g.idx, i)
		g.names += nameHash(name)
		g.running = g.running || s.State == StateRunning
	}
	return groups, loose
}

// newGroup is the group of live directory dir, or nil when no source of
// harness has dir under its root.
func (a *Archive) newGroup(harness, dir string) *syncGroup {
	for _, src := range a.Sources {
		if src.Reader.Harness() != harness || src.Root == "" {
			continue
		}
		rel, ok := relUnder(src.Root, dir)
		if !ok && src.resolved != "" {
			rel, ok = relUnder(src.resolved, dir) // Codex's resolved rollout_path
		}
		if !ok {
			return nil
		}
		return &syncGroup{harness: harness, live: dir, stored: filepath.Join(src.Dir, rel)}
	}
	return nil
}

// relUnder is dir relative to root when it is under it (or root itself).
func relUnder(root, dir string) (string, bool) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// current reports whether g's record says its sessions need no sync.
func (st *archiveState) current(g *syncGroup, now int64) bool {
	rec, ok := st.harness(g.harness).Synced[g.live]
	if !ok {
		return false
	}
	st.seen["s\x00"+g.live] = true
	stored, okStored := st.walkedAt[g.stored]
	if !okStored {
		stored, okStored = scan.MtimeOf(g.stored)
	}
	return g.ok && okStored && rec.Live == g.liveMTime && rec.Stored == stored &&
		rec.Names == g.names && rec.N == len(g.idx) &&
		now-rec.Checked < int64(scan.DirRecheck) &&
		(rec.Linked || (now-rec.Newest > int64(scan.DirHotWindow) && !g.running))
}

// sync passes Sync the live sessions whose directory changed since they
// were last all archived, and records the directories it then reports
// current.
func (a *Archive) sync(live []Session, st *archiveState, stats *scan.DirStats) {
	if a.Sync == nil {
		return
	}
	start := time.Now()
	groups, todo := a.groupByDir(live)
	var changed []*syncGroup
	for _, g := range groups {
		g.liveMTime, g.ok = stats.Mtime(g.live)
		if st.current(g, start.UnixNano()) {
			continue
		}
		changed = append(changed, g)
		todo = append(todo, g.idx...)
	}
	if len(todo) == 0 {
		return
	}
	batch := make([]Session, len(todo))
	pos := make(map[int]int, len(todo))
	for j, i := range todo {
		batch[j], pos[i] = live[i], j
	}
	res := a.Sync(batch)
	if len(res) != len(batch) {
		return // not synced (another process holds the archive)
	}
	for _, g := range changed {
		st.record(g, res, pos, start)
	}
}

// record notes that g's sessions are current, when all are and no mtime
// is too recent to be trusted.
func (st *archiveState) record(g *syncGroup, res []Synced, pos map[int]int, start time.Time) {
	rec := syncedDir{Live: g.liveMTime, Checked: start.UnixNano(), Linked: true, Names: g.names, N: len(g.idx)}
	for _, i := range g.idx {
		r := res[pos[i]]
		if !r.OK {
			return
		}
		rec.Linked = rec.Linked && r.Linked
		rec.Newest = max(rec.Newest, r.MTime)
	}
	stored, ok := scan.MtimeOf(g.stored)
	racy := int64(scan.DirRacyWindow)
	if !g.ok || !ok || g.liveMTime >= start.UnixNano()-racy || stored >= time.Now().UnixNano()-racy {
		return
	}
	rec.Stored = stored
	st.seen["s\x00"+g.live] = true
	hs := st.harness(g.harness)
	old, ok := hs.Synced[g.live]
	if ok && !rec.Linked && start.UnixNano()-rec.Newest <= int64(scan.DirHotWindow) {
		// A directory of copies written in the last day is synced by
		// every listing whatever its record says: a new Checked alone is
		// not worth rewriting the file.
		old.Checked = rec.Checked
	}
	if !ok || old != rec {
		hs.Synced[g.live] = rec
		st.dirty = true
	}
}

// walk calls visit with every archive directory under root that holds
// files, and their names, reading only directories whose mtime changed.
func (st *archiveState) walk(ctx context.Context, harness, root string, visit func(dir string, files []string)) {
	if ctx.Err() != nil {
		return
	}
	entries := st.readDir(harness, root)
	var files []string
	for _, e := range entries {
		if !strings.HasSuffix(e, "/") {
			files = append(files, e)
		}
	}
	if len(files) > 0 {
		visit(root, files)
	}
	for _, e := range entries {
		if sub, ok := strings.CutSuffix(e, "/"); ok {
			st.walk(ctx, harness, filepath.Join(root, sub), visit)
		}
	}
}

// readDir returns dir's entries: the recorded ones when its mtime is
// unchanged, else a fresh read. An unreadable directory has none.
func (st *archiveState) readDir(harness, dir string) []string {
	now := time.Now().UnixNano()
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil
	}
	mtime := fi.ModTime().UnixNano()
	if st.walkedAt == nil {
		st.walkedAt = map[string]int64{}
	}
	st.walkedAt[dir] = mtime
	hs := st.harness(harness)
	st.seen["w\x00"+dir] = true
	if rec, ok := hs.Walked[dir]; ok && rec.MTime == mtime && mtime < rec.Checked-int64(scan.DirRacyWindow) &&
		now-rec.Checked < int64(scan.DirRecheck) {
		return rec.Entries
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var entries []string
	for _, d := range des {
		switch name := d.Name(); {
		case d.IsDir():
			entries = append(entries, name+"/")
		case d.Type().IsRegular() && !archive.IsTemp(name):
			entries = append(entries, name)
		}
	}
	hs.Walked[dir] = walkedDir{MTime: mtime, Checked: now, Entries: entries}
	st.dirty = true
	return entries
}

package codexsessions

import (
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/agent/filecache"
	"github.com/tether-dev/tether/agent/scan"
)

// Day-directory skip. Codex writes each thread's rollout under
// sessions/YYYY/MM/DD/ (or archived_sessions/) and appends to it in place.
// A warm list takes a rollout's head and tail from the cache without a
// stat when all of these hold, the Claude directory skip's rules plus two
// that Codex gives for free:
//   - its directory's mtime is the recorded one (no rollout created,
//     removed or renamed there since), not within dirRacyWindow of the
//     recording;
//   - the directory's newest rollout was written more than dirHotWindow
//     ago, and the record is less than dirRecheck old;
//   - no process holds the rollout open (the thread is not running);
//   - the state database's updated_at for the thread is older than the
//     record (Codex updates it as the thread runs).
//
// Threads listed from rollout files alone (no state database) are stat-ed
// one by one as before.
type dayDirs struct {
	r    *Reader
	on   bool
	now  int64
	dirs map[string]*dayDir
}

// codexDay is one rollout directory of a listing.
type dayDir struct {
	rec     filecache.DirRecord // the trusted record, or the fresh one being made
	old     filecache.DirRecord // the record found, if any
	hadOld  bool
	trusted bool
	stated  bool // its mtime was read
	newest  int64
}

func (r *Reader) newDayDirs(on bool) *dayDirs {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	return &dayDirs{r: r, on: on && r.Cache != nil, now: now.UnixNano(), dirs: map[string]*dayDir{}}
}

// day returns dir's state, stat-ing it the first time.
func (ds *dayDirs) day(dir string) *dayDir {
	if d, ok := ds.dirs[dir]; ok {
		return d
	}
	d := &dayDir{}
	ds.dirs[dir] = d
	mtime, ok := scan.MtimeOf(dir)
	if !ok {
		return d
	}
	ds.r.stats.Put(dir, mtime)
	d.stated = true
	d.old, d.hadOld = ds.r.Cache.Dir(dir)
	rec := d.old
	if d.hadOld && rec.MTime == mtime && mtime < rec.Checked-int64(scan.DirRacyWindow) &&
		ds.now-rec.Checked < int64(scan.DirRecheck) && ds.now-rec.Newest > int64(scan.DirHotWindow) {
		d.rec, d.trusted = rec, true
		return d
	}
	d.rec = filecache.DirRecord{MTime: mtime, Checked: ds.now}
	return d
}

// tail returns row's rollout head and tail with the rollout's size and
// mtime (ok false when it cannot be read), from the cache alone when its
// directory is trusted (then the size and mtime the cache recorded).
func (ds *dayDirs) tail(row threadRow, running bool) (t rolloutTail, size, mtime int64, ok bool) {
	path := row.RolloutPath
	if !ds.on {
		t, fi, err := ds.r.readRolloutInfo(path)
		if err != nil {
			return rolloutTail{}, 0, 0, false
		}
		return t, fi.Size(), fi.ModTime().UnixNano(), true
	}
	d := ds.day(filepath.Dir(path))
	if d.trusted && !running && row.Updated.Before(time.Unix(0, d.rec.Checked-int64(scan.DirRacyWindow))) {
		if size, mt, ok := ds.r.Cache.LookupSized(path, &t); ok {
			d.newest = max(d.newest, mt)
			return t, size, mt, true
		}
	}
	t, fi, err := ds.r.readRolloutInfo(path)
	if err != nil {
		return rolloutTail{}, 0, 0, false
	}
	mt := fi.ModTime().UnixNano()
	d.newest = max(d.newest, mt)
	return t, fi.Size(), mt, true
}

// keep marks row's cache entry and directory as still in use, without a
// stat of the rollout, for a thread this listing does not show.
func (ds *dayDirs) keep(row threadRow) {
	if !ds.on || row.RolloutPath == "" {
		return
	}
	d := ds.day(filepath.Dir(row.RolloutPath))
	var t rolloutTail
	if mt, ok := ds.r.Cache.LookupAny(row.RolloutPath, &t); ok {
		d.newest = max(d.newest, mt)
	}
}

// store records what the listing learned of each directory. A directory
// written in the last day is not trusted whatever its record, so while it
// stays so and nothing else changed its record is left as is (the cache
// is not rewritten for a new check time alone).
func (ds *dayDirs) store() {
	if !ds.on {
		return
	}
	for dir, d := range ds.dirs {
		if !d.stated {
			continue
		}
		rec := d.rec
		rec.Newest = d.newest
		if d.trusted {
			// Its rollouts are the recorded ones: rows this listing did
			// not visit keep their share of the newest mtime.
			rec.Newest = max(rec.Newest, d.old.Newest)
		}
		ds.r.Cache.StoreDir(dir, scan.KeepHotRecord(rec, d.old, d.hadOld && !d.trusted, ds.now))
	}
}

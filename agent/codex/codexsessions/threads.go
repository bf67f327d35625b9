package codexsessions

import (
	"context"
	"time"

	"github.com/tether-dev/tether/agent/scan"
)

// The state database's threads are read again only when the database or
// its write-ahead log changed: a warm list of 1,500 Codex threads spent
// ~12 ms of CPU in SQLite (and as many page faults as the Claude Code
// reader's cache) to get the same rows back. A record is trusted under
// the directory skip's rules (agent/scan): the files' size, mtime and
// inode are the recorded ones, none of the mtimes is within
// scan.DirRacyWindow of the read that made it, and it is less than
// scan.DirRecheck old.

// threadsRecord is the rows a query of the database at Stamp returned,
// read at Checked (UnixNano, taken before the query).
type threadsRecord struct {
	Stamp   scan.DBStamp
	Checked int64
	Rows    []threadRow
}

// threads returns the state database's threads, from the cache when the
// database is as it was when they were last read.
func (r *Reader) threads(ctx context.Context, db string) ([]threadRow, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	st, ok := scan.StampDB(db)
	if ok {
		if rows, hit := trustedRows(r.Cache, db, st, now.UnixNano()); hit {
			return rows, nil
		}
	}
	rows, err := queryThreads(ctx, db)
	if err == nil && ok {
		r.Cache.StoreRecord(db, threadsRecord{Stamp: st, Checked: now.UnixNano(), Rows: rows})
	}
	return rows, err
}

// trustedRows returns the rows recorded for db when the record can be
// trusted at now.
func trustedRows(c *Cache, db string, st scan.DBStamp, now int64) ([]threadRow, bool) {
	rec, ok := c.Record(db)
	if !ok {
		return nil, false
	}
	if !rec.Stamp.Trusts(rec.Checked, st, now) {
		return nil, false
	}
	return rec.Rows, true
}

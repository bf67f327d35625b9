package catalog

import (
	"context"
	"os"
	"time"
)

// The state database's threads are read again only when the database or
// its write-ahead log changed: a warm list of 1,500 Codex threads spent
// ~12 ms of CPU in SQLite (and as many page faults as the Claude Code
// reader's cache) to get the same rows back. A record is trusted under
// the directory skip's rules (see ClaudeReader): the files' size, mtime
// and inode are the recorded ones, none of the mtimes is within
// dirRacyWindow of the read that made it, and it is less than dirRecheck
// old.

// dbStamp identifies the state of a SQLite database: its file and its
// -wal file (Codex writes through the WAL; a checkpoint rewrites the
// database), each as size, mtime (UnixNano) and inode (0: absent).
type dbStamp struct {
	DBSize, DBMTime, WALSize, WALMTime int64
	DBIno, WALIno                      uint64
}

// threadsRecord is the rows a query of the database at Stamp returned,
// read at Checked (UnixNano, taken before the query).
type threadsRecord struct {
	Stamp   dbStamp
	Checked int64
	Rows    []codexRow
	seen    bool
}

// stampDB stats db and its WAL; ok is false when db cannot be stat-ed.
func stampDB(db string) (dbStamp, bool) {
	fi, err := os.Stat(db)
	if err != nil {
		return dbStamp{}, false
	}
	st := dbStamp{DBSize: fi.Size(), DBMTime: fi.ModTime().UnixNano(), DBIno: inode(fi)}
	if fi, err := os.Stat(db + "-wal"); err == nil {
		st.WALSize, st.WALMTime, st.WALIno = fi.Size(), fi.ModTime().UnixNano(), inode(fi)
	} else if !isNotExist(err) {
		return dbStamp{}, false
	}
	return st, true
}

// threads returns the state database's threads, from the cache when the
// database is as it was when they were last read.
func (r *CodexReader) threads(ctx context.Context, db string) ([]codexRow, error) {
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}
	st, ok := stampDB(db)
	if ok {
		if rows, hit := r.Cache.threads(db, st, now.UnixNano()); hit {
			return rows, nil
		}
	}
	rows, err := queryThreads(ctx, db)
	if err == nil && ok {
		r.Cache.storeThreads(db, threadsRecord{Stamp: st, Checked: now.UnixNano(), Rows: rows})
	}
	return rows, err
}

// threads returns the rows recorded for db when the record can be
// trusted at now.
func (c *Cache) threads(db string, st dbStamp, now int64) ([]codexRow, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := c.dbs[db]
	if rec == nil {
		return nil, false
	}
	rec.seen = true
	racy := rec.Checked - int64(dirRacyWindow)
	if rec.Stamp != st || st.DBMTime >= racy || st.WALMTime >= racy || now-rec.Checked >= int64(dirRecheck) {
		return nil, false
	}
	return rec.Rows, true
}

// storeThreads records what a query of db returned.
func (c *Cache) storeThreads(db string, rec threadsRecord) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	rec.seen = true
	c.dbs[db] = &rec
	c.dirty = true
}

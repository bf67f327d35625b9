package searchindex

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"syscall"

	"github.com/tether-dev/tether/catalog"
)

// Counts is the index as the catalog's source of message counts
// (catalog.CountIndex): the index reads every transcript whole, counting
// its messages with the catalog's rule as it goes, so a list can show the
// counts of transcripts it reads only the ends of. It opens the index
// read-only, only when asked to Load, and never waits: an index being
// written is skipped (the list asks again next time). Nothing is created
// when there is no index.
func Counts(path string) catalog.CountIndex { return &counts{path: path} }

type counts struct {
	path      string
	stampOnce sync.Once
	stamp     string
	loadOnce  sync.Once
	rows      map[string]countRow
	err       error
}

type countRow struct {
	size, mtime int64
	mc          catalog.MessageCount
}

// Stamp is the index file's inode, size and mtime: any write changes
// them ("" when there is no index).
func (c *counts) Stamp() string {
	c.stampOnce.Do(func() {
		fi, err := os.Stat(c.path)
		if err != nil || fi.Size() == 0 {
			return
		}
		var ino uint64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			ino = uint64(st.Ino)
		}
		c.stamp = fmt.Sprintf("%d/%d/%d", ino, fi.Size(), fi.ModTime().UnixNano())
	})
	return c.stamp
}

// Load reads every transcript's count once (both harnesses' readers
// share it).
func (c *counts) Load() (catalog.CountLookup, error) {
	c.loadOnce.Do(func() { c.rows, c.err = c.load() })
	if c.err != nil {
		return nil, c.err
	}
	return func(path string, size, mtime int64) (catalog.MessageCount, bool) {
		r, ok := c.rows[path]
		if !ok || r.size != size || r.mtime != mtime {
			return catalog.MessageCount{}, false
		}
		return r.mc, true
	}, nil
}

func (c *counts) load() (map[string]countRow, error) {
	if _, err := os.Stat(c.path); err != nil {
		return nil, err
	}
	// Read-only, and no busy timeout: a list does not wait for a search
	// that is updating the index.
	u := url.URL{Scheme: "file", Path: c.path, RawQuery: "mode=ro&_pragma=busy_timeout(0)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return nil, err
	}
	if v != schemaVersion {
		return nil, errors.New("search index of another version")
	}
	rs, err := db.Query(`SELECT path, size, mtime, off, msgs, carry FROM files WHERE path != '' AND size >= 0`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	m := map[string]countRow{}
	for rs.Next() {
		var (
			path  string
			r     countRow
			carry int64
		)
		if err := rs.Scan(&path, &r.size, &r.mtime, &r.mc.Off, &r.mc.N, &carry); err != nil {
			return nil, err
		}
		r.mc.Last = uint64(carry)
		m[path] = r
	}
	return m, rs.Err()
}

// Package searchindex is the full-text index behind `tether sessions
// search`: an SQLite FTS5 table (through the pure-Go modernc driver) with
// one row per session over its title, stored summary, human prompts,
// assistant text and tool calls. It is kept current from the catalog's
// listing by each transcript's (path, size, mtime): a transcript that only
// grew has just its new lines read; one that was rewritten or shrank is
// read again; a session that is gone is dropped. Text comes out of
// transcripts through catalog.Texts only. A summary is written later and
// on its own, so it is kept current by its own stamp: a new or redone one
// replaces just that column, an unchanged one is not read.
package searchindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	_ "modernc.org/sqlite" // pure-Go SQLite with FTS5 compiled in
)

// schemaVersion is stored in PRAGMA user_version; an index written by
// another version is dropped and rebuilt (it is a cache).
// 3: message counts (msgs, carry).
const schemaVersion = 3

// The columns of the docs table, in order; bm25 weights follow them.
const (
	colTitle = iota
	colSummary
	colPrompt
	colAssistant
	colTool
	numCols
)

// colNames name the columns in JSON output (catalog.Snippet.Field).
var colNames = [numCols]string{"title", "summary", "prompt", "assistant", "tool"}

const schema = `
CREATE TABLE IF NOT EXISTS files(
	id INTEGER PRIMARY KEY,
	key TEXT NOT NULL UNIQUE,   -- harness:id
	path TEXT NOT NULL,         -- transcript ("" when there is none)
	size INTEGER NOT NULL,      -- size and mtime (ns) when last read
	mtime INTEGER NOT NULL,
	off INTEGER NOT NULL,       -- bytes read: up to the last complete line
	head BLOB, tail BLOB,       -- fingerprints of the bytes before off
	title TEXT NOT NULL,
	last INTEGER NOT NULL,      -- last activity (ns), the tie breaker
	sumstamp TEXT NOT NULL DEFAULT '', -- the summary indexed ("" none)
	msgs INTEGER NOT NULL DEFAULT 0,   -- messages in the bytes before off
	carry INTEGER NOT NULL DEFAULT 0   -- the count's carry (catalog.MessageCount.Last)
);
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
	title, summary, prompt, assistant, tool,
	tokenize = "unicode61 remove_diacritics 2"
);`

// Index is an open search index.
type Index struct {
	db   *sql.DB
	path string
}

// Open opens (creating if needed) the index at path: the directory 0700,
// the file 0600. An index of another schema version is rebuilt empty.
func Open(path string) (*Index, error) { return open(path, true) }

func open(path string, retry bool) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	// SQLite creates the file with the process umask: create it first
	// (the journal takes the database file's mode).
	// Non-blocking and fstat-ed: SQLite would wait forever on a FIFO.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	// A rollback journal, not WAL: a search that changes nothing then
	// creates and deletes no file (WAL's -wal and -shm files cost more
	// than the query), and a first build writes each page once.
	u := url.URL{Scheme: "file", Path: path, RawQuery: "_pragma=busy_timeout(5000)&_pragma=journal_mode(truncate)&_pragma=synchronous(normal)&_pragma=cache_size(-32000)&_txlock=immediate"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("search index %s: %w", path, err)
	}
	// One connection: the FTS5 writer and readers share the page cache.
	db.SetMaxOpenConns(1)
	ix := &Index{db: db, path: path}
	if err := ix.migrate(); err != nil {
		db.Close()
		if !retry || !isCorrupt(err) {
			return nil, fmt.Errorf("search index %s: %w", path, err)
		}
		// The index is tether's own cache: a damaged one is rebuilt (by
		// one tether: another may be doing the same).
		unlock, err := lock(context.Background(), path, nil)
		if err != nil {
			return nil, fmt.Errorf("search index %s: %w", path, err)
		}
		if now, err := os.Stat(path); err == nil && os.SameFile(now, fi) {
			_ = Remove(path) // not one another tether already rebuilt
		}
		unlock()
		return open(path, false)
	}
	return ix, nil
}

// Remove deletes the index at path (a damaged one: the next Open builds
// it anew).
func Remove(path string) error {
	var errs []error
	for _, p := range files(path) {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// IsCorrupt reports whether err says the index file is damaged.
func IsCorrupt(err error) bool { return err != nil && isCorrupt(err) }

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool { return err != nil && strings.Contains(err.Error(), "SQLITE_BUSY") }

func isCorrupt(err error) bool {
	s := err.Error()
	return strings.Contains(s, "not a database") || strings.Contains(s, "malformed")
}

func (ix *Index) migrate() error {
	v, err := ix.version(ix.db)
	if isBusy(err) {
		// Another tether's write held SQLite's lock past the busy
		// timeout (a large first build spills its cache into the file):
		// wait for that writer, as its lock says, and look again.
		unlock, lerr := lock(context.Background(), ix.path, nil)
		if lerr != nil {
			return err
		}
		v, err = ix.version(ix.db)
		unlock()
	}
	if err != nil || v == schemaVersion {
		// The schema is in place (the version is set after it): writing
		// the version again would commit a write on every open, which
		// changes the file each search and tells lists the index changed.
		return err
	}
	// Another tether may be creating the schema too: one does, under the
	// writers' lock, in one transaction, and the other finds it done.
	unlock, err := lock(context.Background(), ix.path, nil)
	if err != nil {
		return err
	}
	defer unlock()
	tx, err := ix.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v, err = ix.version(tx); err != nil || v == schemaVersion {
		return err
	}
	for _, q := range []string{`DROP TABLE IF EXISTS files`, `DROP TABLE IF EXISTS docs`, schema,
		// Buffer 16 MiB of terms before writing a segment (default 1
		// MiB): a first build writes far fewer, larger segments.
		`INSERT INTO docs(docs, rank) VALUES('hashsize', 16777216)`,
		fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// version is the schema version stored in the index.
func (ix *Index) version(q interface {
	QueryRow(string, ...any) *sql.Row
}) (int, error) {
	var v int
	err := q.QueryRow(`PRAGMA user_version`).Scan(&v)
	return v, err
}

// Close closes the index.
func (ix *Index) Close() error { return ix.db.Close() }

// Path is the index file.
func (ix *Index) Path() string { return ix.path }

// files are the index's files: the database and its journal (and a WAL's
// files, should one be left from another journal mode).
func files(path string) []string {
	return []string{path, path + "-journal", path + "-wal", path + "-shm", listedFile(path)}
}

// Size is the bytes the index at path takes on disk, its journal
// included; 0 when there is no index.
func Size(path string) (int64, error) {
	var n int64
	for _, p := range files(path) {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += fi.Size()
	}
	return n, nil
}

// Count is the number of sessions indexed.
func (ix *Index) Count(ctx context.Context) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM files`).Scan(&n)
	return n, err
}

// Command ftsfloor is a floor for the search index's first build in
// scripts/bench.sh: it builds a second FTS5 table, declared as the index's
// own, from the text the index already holds — SQLite's indexing work
// alone (tokenizer, term hash, segment writes and merges), without reading
// transcripts, extracting their text or the catalog. It prints the time
// taken and the bytes of text indexed.
//
//	ftsfloor SEARCH.DB
package main

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ftsfloor SEARCH.DB")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "ftsfloor:", err)
		os.Exit(1)
	}
}

func run(index string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(index), ".ftsfloor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// The index's own settings (searchindex.Open), on a new file.
	u := url.URL{Scheme: "file", Path: filepath.Join(tmp, "floor.db"),
		RawQuery: "_pragma=journal_mode(truncate)&_pragma=synchronous(normal)&_pragma=cache_size(-32000)"}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	src := url.URL{Scheme: "file", Path: index, RawQuery: "mode=ro"}
	if _, err := db.Exec(`ATTACH DATABASE ? AS src`, src.String()); err != nil {
		return err
	}
	var create string
	if err := db.QueryRow(`SELECT sql FROM src.sqlite_master WHERE type = 'table' AND name = 'docs'`).Scan(&create); err != nil {
		return fmt.Errorf("%s: no docs table: %w", index, err)
	}
	var text int64
	if err := db.QueryRow(`SELECT coalesce(sum(length(CAST(title||summary||prompt||assistant||tool AS BLOB))), 0) FROM src.docs`).Scan(&text); err != nil {
		return err
	}
	// Copy the text out first: the timed part reads a plain table.
	if _, err := db.Exec(`CREATE TABLE main.text AS SELECT title, summary, prompt, assistant, tool FROM src.docs`); err != nil {
		return err
	}
	if _, err := db.Exec(create); err != nil { // "CREATE VIRTUAL TABLE docs …" in main
		return err
	}
	start := time.Now()
	if _, err := db.Exec(`INSERT INTO main.docs SELECT title, summary, prompt, assistant, tool FROM main.text`); err != nil {
		return err
	}
	fmt.Printf("ms=%.2f text_bytes=%d\n", float64(time.Since(start).Microseconds())/1000, text)
	return nil
}

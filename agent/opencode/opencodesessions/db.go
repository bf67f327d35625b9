package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// openRO opens OpenCode's database read-only: mode=ro takes no write
// lock and never checkpoints the WAL (OpenCode, running, owns it), and
// the busy timeout rides out OpenCode's own short write locks. As
// codexsessions opens Codex's state database.
func openRO(path string, quiet bool) (*sql.DB, error) {
	q := "mode=ro&_pragma=busy_timeout(2000)"
	if quiet {
		q += "&immutable=1"
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q}
	return sql.Open("sqlite", u.String())
}

// readDB runs read on the database. Even mode=ro creates the -wal and
// -shm files of a WAL database that has none (OpenCode closed): so when
// there are none, the database is read as immutable (no locks, no
// sidecar files), and read again the ordinary read-only way if the
// database or its sidecars changed meanwhile (OpenCode started).
func readDB(path string, read func(*sql.DB) error) error {
	before, quiet := quietStamp(path)
	db, err := openRO(path, quiet)
	if err != nil {
		return err
	}
	err = read(db)
	db.Close()
	if after, still := quietStamp(path); !quiet || (still && after == before) {
		return err
	}
	if db, err = openRO(path, false); err != nil {
		return err
	}
	defer db.Close()
	return read(db)
}

// quietStamp is path's size and mtime, and whether it has no -wal and no
// -shm file.
func quietStamp(path string) ([2]int64, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return [2]int64{}, false
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + ext); err == nil || !os.IsNotExist(err) {
			return [2]int64{}, false
		}
	}
	return [2]int64{fi.Size(), fi.ModTime().UnixNano()}, true
}

// schema is the columns present per table (a table absent: no entry).
type schema map[string]map[string]bool

// probe reads the columns of tables: OpenCode's schema changes between
// versions (a migration per release), so what is there is asked, not
// assumed.
func probe(ctx context.Context, db *sql.DB, tables ...string) (schema, error) {
	sc := schema{}
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, fmt.Errorf("probe %s table: %w", t, err)
		}
		cols := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return nil, fmt.Errorf("probe %s table: %w", t, err)
			}
			cols[name] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("probe %s table: %w", t, err)
		}
		if len(cols) > 0 {
			sc[t] = cols
		}
	}
	return sc, nil
}

// missing is why table lacks what is needed ("" when it has it all).
func (sc schema) missing(table string, need ...string) string {
	cols, ok := sc[table]
	if !ok {
		return "no " + table + " table (unfamiliar schema)"
	}
	var lack []string
	for _, c := range need {
		if !cols[c] {
			lack = append(lack, c)
		}
	}
	if len(lack) > 0 {
		return table + " table has no " + strings.Join(lack, ", ") + " column (unfamiliar schema)"
	}
	return ""
}

// col is column c of table as a select expression: NULL when absent.
func (sc schema) col(table, alias, c string) string {
	if sc[table][c] {
		return alias + `."` + c + `"`
	}
	return "NULL"
}

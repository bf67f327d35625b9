package sessiontest

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The sessions of the real OpenCode 1.18.33 samples.
const (
	SampleOpenCode         = "ses_dcd139480ffeoAscKd2JgtbA1X" // tool call, resume, manual compaction
	SampleOpenCodeOverflow = "ses_dcd09fbc5ffeVjgWt4UDgHeQf3" // prompt too long, auto compaction
)

// OpenCodeDB builds data/opencode.db from OpenCode 1.18.33's real schema
// and the real rows of both sample sessions (the project, sessions,
// messages and parts; the event log is left out: the reader reads the
// tables), in WAL mode as OpenCode keeps it, and closes it (so no -wal
// or -shm file is left). It returns the database's path.
func OpenCodeDB(t testing.TB, data string) string {
	t.Helper()
	path := filepath.Join(data, "opencode.db")
	WriteFile(t, path, nil)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := string(Sample(t, "opencode-1.18.33", "sample-opencode.db.schema.sql"))
	if _, err := db.Exec(schema); err != nil {
		t.Fatalf("opencode schema: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(Sample(t, "opencode-1.18.33", "sample-db-project.json"), &rows); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sample-db-session-tool-resume-compact.jsonl", "sample-db-session-overflow-autocompact.jsonl"} {
		sc := bufio.NewScanner(bytes.NewReader(Sample(t, "opencode-1.18.33", f)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r map[string]any
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			rows = append(rows, r)
		}
	}
	for _, r := range rows {
		if tab := r["_table"]; tab != "event" {
			InsertOpenCodeRow(t, db, tab.(string), r)
		}
	}
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	return path
}

// InsertOpenCodeRow inserts r (column → value, "_table" ignored) into
// table; objects and arrays are stored as JSON text, as OpenCode does.
func InsertOpenCodeRow(t testing.TB, db *sql.DB, table string, r map[string]any) {
	t.Helper()
	var cols []string
	for k := range r {
		if k != "_table" {
			cols = append(cols, k)
		}
	}
	sort.Strings(cols)
	args := make([]any, len(cols))
	for i, c := range cols {
		switch v := r[c].(type) {
		case map[string]any, []any:
			b, _ := json.Marshal(v)
			args[i] = string(b)
		default:
			args[i] = v
		}
	}
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("insert %s: %v", table, err)
	}
}

// OpenCodeManyDB builds data/opencode.db as OpenCodeDB does, then adds n
// copies of the first sample session (its messages and parts), each
// under fresh ids and a directory of its own among dirs, for measuring a
// list of many sessions. It returns the database's path.
func OpenCodeManyDB(t testing.TB, data string, n, dirs int) string {
	t.Helper()
	path := OpenCodeDB(t, data)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		// Session ids sort newest first and share their first hex digits,
		// as OpenCode's do.
		sid := fmt.Sprintf("ses_dcd1%08xffeSyn%06d", 0xffffffff-i, i)
		dir := fmt.Sprintf("/home/example/proj%d", i%max(dirs, 1))
		for _, q := range []string{
			`INSERT INTO session SELECT ?, project_id, workspace_id, parent_id, slug, ?, path, title || ?, version, share_url,
				summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output,
				tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model,
				time_created + ?, time_updated + ?, time_compacting, time_archived FROM session WHERE id = '` + SampleOpenCode + `'`,
			`INSERT INTO message SELECT id || ?2, ?1, time_created + ?4, time_updated + ?4, data FROM message WHERE session_id = '` + SampleOpenCode + `'`,
			`INSERT INTO part SELECT id || ?2, message_id || ?2, ?1, time_created + ?4, time_updated + ?4, data FROM part WHERE session_id = '` + SampleOpenCode + `'`,
		} {
			var err error
			if strings.Contains(q, "INSERT INTO session") {
				_, err = tx.Exec(q, sid, dir, fmt.Sprintf(" %d", i), i*1000, i*1000)
			} else {
				_, err = tx.Exec(q, sid, fmt.Sprintf("_%d", i), dir, i*1000)
			}
			if err != nil {
				t.Fatalf("copy session %d: %v", i, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return path
}

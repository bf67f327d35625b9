package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// sessionColumns are the session table's columns List reads, in scan
// order; id and directory are needed, the others read as NULL when a
// version lacks them.
var sessionColumns = []string{"id", "directory", "title", "parent_id", "version", "model",
	"tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read", "tokens_cache_write", "cost",
	"time_created", "time_updated", "time_archived"}

// querySessions reads every session in one query: the session row, its
// project's worktree and name, its workspace's branch, and per session
// its message count, its last assistant message with output (the context
// in use), its tool calls and compactions, and its human prompts and
// the time of the last one.
func querySessions(ctx context.Context, db *sql.DB) ([]row, error) {
	sc, err := probe(ctx, db, "session", "message", "part", "project", "workspace")
	if err != nil {
		return nil, err
	}
	if why := sc.missing("session", "id", "directory"); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	sel := make([]string, 0, len(sessionColumns)+10)
	for _, c := range sessionColumns {
		sel = append(sel, sc.col("session", "s", c))
	}
	from := "session s"
	if sc.missing("project", "id", "worktree") == "" && sc["session"]["project_id"] {
		sel = append(sel, "pr.worktree", sc.col("project", "pr", "name"))
		from += " LEFT JOIN project pr ON pr.id = s.project_id"
	} else {
		sel = append(sel, "NULL", "NULL")
	}
	if sc.missing("workspace", "id", "branch") == "" && sc["session"]["workspace_id"] {
		sel = append(sel, "ws.branch")
		from += " LEFT JOIN workspace ws ON ws.id = s.workspace_id"
	} else {
		sel = append(sel, "NULL")
	}
	msgs := sc.missing("message", "id", "session_id", "data") == ""
	if msgs {
		order := "m.id DESC"
		if sc["message"]["time_created"] {
			order = "m.time_created DESC, m.id DESC"
		}
		sel = append(sel, "(SELECT count(*) FROM message m WHERE m.session_id = s.id)",
			`(SELECT m.data FROM message m WHERE m.session_id = s.id
			AND json_extract(m.data, '$.role') = 'assistant' AND json_extract(m.data, '$.tokens.output') > 0
			ORDER BY `+order+` LIMIT 1)`)
	} else {
		sel = append(sel, "NULL", "NULL")
	}
	if msgs && sc.missing("part", "session_id", "message_id", "data") == "" {
		// One pass over the parts for the tool calls and compactions, one
		// over the user messages for the human prompts (each looks up its
		// text parts by their message): ~60 ms of SQLite for 1,000
		// sessions of the sample's, where one pass joining every part to
		// its message took twice that.
		from += ` LEFT JOIN (SELECT sid, sum(t = 'tool') tools, sum(t = 'compaction') compactions
			FROM (SELECT p.session_id sid, json_extract(p.data, '$.type') t FROM part p) GROUP BY sid) a ON a.sid = s.id`
		if sc["message"]["time_created"] {
			from += ` LEFT JOIN (SELECT m.session_id sid, count(*) humans, max(m.time_created) last_human FROM message m
				WHERE json_extract(m.data, '$.role') = 'user' AND EXISTS (SELECT 1 FROM part p WHERE p.message_id = m.id
					AND json_extract(p.data, '$.type') = 'text' AND coalesce(json_extract(p.data, '$.synthetic'), 0) = 0)
				GROUP BY m.session_id) h ON h.sid = s.id`
			sel = append(sel, "a.tools", "a.compactions", "h.humans", "h.last_human")
		} else {
			sel = append(sel, "a.tools", "a.compactions", "NULL", "NULL")
		}
	} else {
		sel = append(sel, "NULL", "NULL", "NULL", "NULL")
	}
	rs, err := db.QueryContext(ctx, "SELECT "+strings.Join(sel, ", ")+" FROM "+from)
	if err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		w, err := scanRow(rs)
		if err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out = append(out, w)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	return out, nil
}

// scanRow reads one row of querySessions.
func scanRow(rs *sql.Rows) (row, error) {
	var (
		s    [9]sql.NullString // id … model, worktree, name, branch
		n    [5]sql.NullInt64  // tokens
		cost sql.NullFloat64
		t    [3]sql.NullInt64 // created, updated, archived
		msgs sql.NullInt64
		last sql.NullString
		agg  [4]sql.NullInt64 // tools, compactions, humans, last human
	)
	dst := []any{&s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &n[0], &n[1], &n[2], &n[3], &n[4], &cost,
		&t[0], &t[1], &t[2], &s[6], &s[7], &s[8], &msgs, &last, &agg[0], &agg[1], &agg[2], &agg[3]}
	if err := rs.Scan(dst...); err != nil {
		return row{}, err
	}
	w := row{ID: s[0].String, Dir: s[1].String, Title: s[2].String, Parent: s[3].String, Version: s[4].String,
		Model: s[5].String, Worktree: s[6].String, Project: s[7].String, Branch: s[8].String,
		Cost: cost.Float64, HasTokens: n[0].Valid || cost.Valid,
		Created: t[0].Int64, Updated: t[1].Int64, Archived: t[2].Valid,
		HasMsgs: msgs.Valid, Msgs: msgs.Int64,
		Tools: agg[0].Int64, Compactions: agg[1].Int64, Humans: agg[2].Int64, LastHum: agg[3].Int64}
	for i := range n {
		w.Tokens[i] = n[i].Int64
	}
	if last.Valid {
		w.lastAssistant(gjson.Parse(last.String))
	}
	return w, nil
}

// lastAssistant takes the context in use from the session's last
// assistant message with output: none when that message is a
// compaction's summary (the context is unknown until the next turn).
func (w *row) lastAssistant(m gjson.Result) {
	w.LastModel, w.LastProvider = m.Get("modelID").String(), m.Get("providerID").String()
	if m.Get("summary").Bool() {
		return
	}
	w.Ctx, w.CtxKnown = contextTokens(m)
}

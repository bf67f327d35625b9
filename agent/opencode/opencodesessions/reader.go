package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/opencode"
	"github.com/tether-dev/tether/agent/scan"
)

// Reader reads the sessions of one OpenCode database.
type Reader struct {
	// DB is opencode.db ("": nothing is listed).
	DB string
	// Windows gives a model's context window.
	Windows agent.Windows
	// WorkRules find work references in show (nil: the defaults).
	WorkRules []agent.WorkRule
	// Live says whether a session, recorded in dir and updated last at
	// updated, runs (nil: none is reported running).
	Live func(id, dir string, updated time.Time) agent.Liveness

	roots evidence.RootMemo
}

// Harness implements agent.Reader.
func (r *Reader) Harness() string { return agent.OpenCode }

// sessionColumns are the session table's columns List reads, in scan
// order; id and directory are needed, the others read as NULL when a
// version lacks them.
var sessionColumns = []string{"id", "directory", "title", "parent_id", "version", "model",
	"tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read", "tokens_cache_write", "cost",
	"time_created", "time_updated", "time_archived"}

// row is one session as List reads it.
type row struct {
	s    [6]sql.NullString // id … model
	n    [5]sql.NullInt64  // tokens
	cost sql.NullFloat64
	t    [3]sql.NullInt64 // created, updated, archived
	msgs sql.NullInt64
	last sql.NullString // the last assistant message with output
}

// List implements agent.Reader: every session in one query. A database
// tether cannot query, or one whose schema lacks what is needed, is a
// diagnostic naming it, not an error: the other agents still list.
func (r *Reader) List(ctx context.Context, opts agent.ListOptions) ([]agent.Session, []agent.Diagnostic, error) {
	if r.DB == "" {
		return nil, nil, nil
	}
	if _, err := os.Stat(r.DB); err != nil {
		if scan.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read %s: %w", r.DB, err)
	}
	rows, err := r.query(ctx)
	if err != nil {
		return nil, []agent.Diagnostic{{Harness: agent.OpenCode, Path: r.DB, Problem: err.Error()}}, ctx.Err()
	}
	out := make([]agent.Session, 0, len(rows))
	for i := range rows {
		if rows[i].t[2].Valid && !opts.All {
			continue // archived by OpenCode
		}
		out = append(out, r.session(&rows[i]))
	}
	return out, nil, ctx.Err()
}

// query reads every session, with its message count and its last
// assistant message with output (the context in use), in one query.
func (r *Reader) query(ctx context.Context) ([]row, error) {
	var out []row
	err := readDB(r.DB, func(db *sql.DB) error {
		var err error
		out, err = querySessions(ctx, db, nil)
		return err
	})
	return out, err
}

// querySessions reads the sessions that where (nil: all) selects: a
// clause after FROM session s, given the probed schema, and its
// arguments.
func querySessions(ctx context.Context, db *sql.DB, where func(schema) (string, []any)) ([]row, error) {
	sc, err := probe(ctx, db, "session", "message")
	if err != nil {
		return nil, err
	}
	if why := sc.missing("session", "id", "directory"); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	sel := make([]string, 0, len(sessionColumns)+2)
	for _, c := range sessionColumns {
		sel = append(sel, sc.col("session", "s", c))
	}
	sel = append(sel, "NULL", "NULL")
	if sc.missing("message", "session_id", "data") == "" {
		order := "m.id DESC"
		if sc["message"]["time_created"] {
			order = "m.time_created DESC, m.id DESC"
		}
		sel[len(sel)-2] = "(SELECT count(*) FROM message m WHERE m.session_id = s.id)"
		sel[len(sel)-1] = `(SELECT m.data FROM message m WHERE m.session_id = s.id
			AND json_extract(m.data, '$.role') = 'assistant' AND json_extract(m.data, '$.tokens.output') > 0
			ORDER BY ` + order + ` LIMIT 1)`
	}
	q, args := "SELECT "+strings.Join(sel, ", ")+" FROM session s", []any(nil)
	if where != nil {
		clause, a := where(sc)
		q, args = q+" "+clause, a
	}
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var w row
		dst := []any{&w.s[0], &w.s[1], &w.s[2], &w.s[3], &w.s[4], &w.s[5],
			&w.n[0], &w.n[1], &w.n[2], &w.n[3], &w.n[4], &w.cost, &w.t[0], &w.t[1], &w.t[2], &w.msgs, &w.last}
		if err := rs.Scan(dst...); err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out = append(out, w)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	return out, nil
}

// session is the listed session of w.
func (r *Reader) session(w *row) agent.Session {
	id, dir := w.s[0].String, w.s[1].String
	s := agent.Session{
		Harness:      agent.OpenCode,
		ID:           id,
		Cwd:          dir,
		IdentityRoot: r.roots.Get(dir),
		Created:      unixMilli(w.t[0]),
		LastActivity: unixMilli(w.t[1]),
		Archived:     w.t[2].Valid,
		State:        agent.StateResumable,
		Source:       r.DB,
		CLIVersion:   w.s[4].String,
		Model:        modelID(w.s[5].String),
		Parent:       w.s[3].String,
		Resume:       agent.ResumeSpec{Argv: resumeArgv(id), Dir: dir},
	}
	s.Title, s.TitleSource = w.s[2].String, agent.TitleThread
	if s.Title == "" || strings.HasPrefix(s.Title, untitled) {
		s.Title, s.TitleSource = agent.CwdTitle(dir), agent.TitleCwd
	}
	if w.n[0].Valid || w.cost.Valid {
		s.Tokens = &agent.TokenSums{Input: w.n[0].Int64, Output: w.n[1].Int64, Reasoning: w.n[2].Int64,
			CacheRead: w.n[3].Int64, CacheWrite: w.n[4].Int64, Cost: w.cost.Float64}
	}
	if w.msgs.Valid {
		n := int(w.msgs.Int64)
		s.Messages = &n
	}
	if w.last.Valid {
		m := gjson.Parse(w.last.String)
		if s.Model == "" {
			s.Model = m.Get("modelID").String()
		}
		if tokens, ok := contextTokens(m); ok {
			s.Context = r.context(s.Model, tokens)
		}
	}
	if r.Live != nil && !s.Archived {
		if l := r.Live(id, dir, s.LastActivity); l.Live() {
			s.State, s.Runtime = agent.StateRunning, &agent.Runtime{PID: l.PID}
			if l.Possible {
				s.Runtime.Status = agent.StatusPossibly
			}
		}
	}
	s.NormalizeTimes()
	return s
}

// untitled starts the title OpenCode gives a session until it is titled
// ("New session - 2026-11-30T…").
const untitled = "New session - "

// contextTokens is the context in use after assistant message m: its
// total tokens, or their parts' sum where no total is recorded. A
// compaction's summary (summary: true) is not: the context after it is
// unknown until the next turn.
func contextTokens(m gjson.Result) (int64, bool) {
	if m.Get("summary").Bool() {
		return 0, false
	}
	t := m.Get("tokens")
	if total := t.Get("total"); total.Exists() {
		return total.Int(), true
	}
	sum := t.Get("input").Int() + t.Get("output").Int() + t.Get("reasoning").Int() +
		t.Get("cache.read").Int() + t.Get("cache.write").Int()
	return sum, t.Exists()
}

// context is the context in use of tokens in model's window.
func (r *Reader) context(model string, tokens int64) *agent.ContextUsage {
	w, src := r.Windows.For(model, 0, 0)
	return &agent.ContextUsage{Tokens: tokens, Window: w, WindowKnown: agent.Known(src), Percent: agent.Percent(tokens, w)}
}

// modelID is the model of a session's model column: JSON {id,
// providerID, variant} in 1.18.33, a plain string if a version writes one.
func modelID(col string) string {
	if m := gjson.Parse(col); m.IsObject() {
		return m.Get("id").String()
	}
	return col
}

func unixMilli(v sql.NullInt64) time.Time {
	if !v.Valid || v.Int64 <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64).UTC()
}

// resumeArgv is OpenCode's resume command for id: the agent's own
// Resume, which reads nothing of the agent value.
func resumeArgv(id string) []string {
	argv, _ := (*opencode.Agent)(nil).Resume(id, "", false)
	return argv
}

func nullInt(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }

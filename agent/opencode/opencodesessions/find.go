package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/identity"
)

// Find implements agent.Finder: the session's row alone, by its primary
// key. A database that is not there, or cannot be read, is an error, not
// "no such session": the wrapper then lets OpenCode say.
func (r *Reader) Find(ctx context.Context, id string) (agent.Session, bool, error) {
	return r.one(ctx, func(schema) (string, []any) {
		return "WHERE s.id = ?", []any{id}
	})
}

// Latest implements agent.Finder: the session of dir updated last, at or
// after since (a run's own, when the run made one there).
func (r *Reader) Latest(ctx context.Context, dir string, since time.Time) (agent.Session, bool, error) {
	return r.one(ctx, func(sc schema) (string, []any) {
		updated := sc.col("session", "s", "time_updated")
		return "WHERE s.directory = ? AND " + updated + " >= ? ORDER BY " + updated + " DESC LIMIT 1",
			[]any{dir, since.UnixMilli()}
	})
}

// IDsWithPrefix implements agent.PrefixFinder: OpenCode's ids are
// ses_<body>, and tether shows a prefix of the body. LIKE (ASCII case
// ignored, as tether's own resolution does) narrows the rows; the match
// itself is checked here.
func (r *Reader) IDsWithPrefix(ctx context.Context, prefix string, limit int) ([]string, error) {
	if r.DB == "" {
		return nil, fmt.Errorf("no OpenCode database")
	}
	p := strings.ToLower(prefix)
	like := likeEscape(p)
	var ids []string
	err := readDB(r.DB, func(db *sql.DB) error {
		ids = nil
		rows, err := db.QueryContext(ctx, `SELECT id FROM session WHERE id LIKE ? ESCAPE '\' OR id LIKE ? ESCAPE '\' ORDER BY id`,
			like+"%", "%\\_"+like+"%")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() && len(ids) < limit {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			l := strings.ToLower(id)
			if strings.HasPrefix(l, p) || strings.HasPrefix(identity.SessionBody(l), p) {
				ids = append(ids, id)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.DB, err)
	}
	return ids, nil
}

// likeEscape quotes LIKE's wildcards (and its escape character).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// one is the first session where selects, as List has it.
func (r *Reader) one(ctx context.Context, where func(schema) (string, []any)) (agent.Session, bool, error) {
	if r.DB == "" {
		return agent.Session{}, false, fmt.Errorf("no OpenCode database")
	}
	var rows []row
	err := readDB(r.DB, func(db *sql.DB) error {
		var err error
		rows, err = querySessions(ctx, db, where)
		return err
	})
	if err != nil {
		return agent.Session{}, false, fmt.Errorf("read %s: %w", r.DB, err)
	}
	if len(rows) == 0 {
		return agent.Session{}, false, nil
	}
	return r.session(&rows[0], r.running(rows)), true, nil
}

package opencodesessions

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tether-dev/tether/agent"
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

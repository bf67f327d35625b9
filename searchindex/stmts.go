package searchindex

import (
	"context"
	"database/sql"
)

// wtx is an update's transaction with its statements prepared once: the
// modernc driver parses the SQL of every unprepared Exec again, which was
// 5% of a first build's CPU (three statements per session).
type wtx struct {
	*sql.Tx
	stmts map[string]*sql.Stmt
}

func newWtx(tx *sql.Tx) *wtx { return &wtx{Tx: tx, stmts: map[string]*sql.Stmt{}} }

// stmt is q prepared on the transaction (closed with it).
func (t *wtx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if s, ok := t.stmts[q]; ok {
		return s, nil
	}
	s, err := t.Tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	t.stmts[q] = s
	return s, nil
}

// ExecContext runs q as a prepared statement.
func (t *wtx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	s, err := t.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// QueryRowContext runs q as a prepared statement.
func (t *wtx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	s, err := t.stmt(ctx, q)
	if err != nil {
		// A Row carrying the error: the prepare failed the same way.
		return t.Tx.QueryRowContext(ctx, q, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

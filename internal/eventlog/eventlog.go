// Package eventlog writes and reads tether's lifecycle log: one JSON object
// a line in $XDG_STATE_HOME/tether/events.jsonl.
//
// Many processes append at once (every hook invocation is one), so each
// record is a single write(2) on a file opened with O_APPEND, which the
// kernel keeps whole. Rotation takes a non-blocking lock and is skipped when
// another process holds it: logging must never wait. Records carry metadata
// only (ids, paths, counts, sizes, errors), never prompt or response text.
package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/tether-dev/tether/internal/safeio"
	"time"

	"github.com/tether-dev/tether/agent"
)

// Standard keys every record has.
const (
	KeyTime         = "time"
	KeyLevel        = "level"
	KeyEvent        = "event"
	KeySessionID    = "session_id"
	KeyHarness      = "harness"
	KeyIdentityRoot = "identity_root"
)

// Harness names (declared once, in package agent).
const (
	ClaudeCode = agent.Claude
	Codex      = agent.Codex
	OpenCode   = agent.OpenCode
)

// Options configure a Log.
type Options struct {
	Path         string
	Level        slog.Level
	MaxSize      int64 // bytes; 0 means 10 MiB
	Harness      string
	IdentityRoot string
	// RootFunc, when IdentityRoot is "", gives the identity root at the
	// first record written that names it: a process that logs nothing
	// (most hook events) does not resolve its working directory's root.
	// It may itself write records (they then name its result).
	RootFunc func() string
}

// Log appends lifecycle events. The zero value discards everything. It is
// safe for concurrent use. Writing never fails the caller: the last write
// error is kept for Err.
type Log struct {
	h       slog.Handler
	harness string
	root    string
	lazy    *lazyRoot // the root when root is not known yet (Options.RootFunc)
	w       *appendWriter
}

// lazyRoot is Options.RootFunc's result, computed at most once per caller
// that finds it missing. No lock is held while f runs: f may write a
// record, which asks for the root again (and computes it: f is expected
// to be idempotent).
type lazyRoot struct {
	f func() string
	v atomic.Pointer[string]
}

func (z *lazyRoot) get() string {
	if p := z.v.Load(); p != nil {
		return *p
	}
	v := z.f()
	z.v.Store(&v)
	return v
}

// Open returns a log that appends to opts.Path. Nothing is opened until the
// first record, so a log that is never written costs nothing.
func Open(opts Options) *Log {
	if opts.MaxSize <= 0 {
		opts.MaxSize = 10 << 20
	}
	w := &appendWriter{path: opts.Path, maxSize: opts.MaxSize}
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: opts.Level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.MessageKey {
				a.Key = KeyEvent
			}
			if len(groups) == 0 && a.Key == slog.LevelKey {
				a.Value = slog.StringValue(levelName(a.Value))
			}
			return a
		},
	})
	l := &Log{h: h, w: w, harness: opts.Harness, root: opts.IdentityRoot}
	if opts.IdentityRoot == "" && opts.RootFunc != nil {
		l.lazy = &lazyRoot{f: opts.RootFunc}
	}
	return l
}

// levelName is the record's level in lower case. A slog.Level's
// Value.String goes through fmt (a printer from its pool, three interface
// assertions) on every record; the level's own String does not.
func levelName(v slog.Value) string {
	if l, ok := v.Any().(slog.Level); ok {
		return strings.ToLower(l.String())
	}
	return strings.ToLower(v.String())
}

// With returns a log whose records name a different harness and root. It
// writes through the same handler and file.
func (l *Log) With(harness, identityRoot string) *Log {
	if l == nil || l.h == nil {
		return l
	}
	c := *l
	c.harness, c.root, c.lazy = harness, identityRoot, nil
	return &c
}

// Emit writes one event record.
func (l *Log) Emit(level slog.Level, event, sessionID string, attrs ...slog.Attr) {
	if l == nil || l.h == nil {
		return
	}
	// What slog.New(h).With(harness, root).LogAttrs wrote, the same
	// fields in the same order, without a Logger: its With formats the
	// two fields in a handler of their own (twice a hook: the hook
	// names its harness and root once it knows them), and LogAttrs walks
	// the stack for a source the records never carry.
	ctx := context.Background()
	if !l.h.Enabled(ctx, level) {
		return
	}
	root := l.root
	if l.lazy != nil {
		root = l.lazy.get()
	}
	r := slog.NewRecord(time.Now(), level, event, 0)
	r.AddAttrs(slog.String(KeyHarness, l.harness), slog.String(KeyIdentityRoot, root), slog.String(KeySessionID, sessionID))
	r.AddAttrs(attrs...)
	_ = l.h.Handle(ctx, r)
}

// Debug, Info, Warn and Error are Emit at that level.
func (l *Log) Debug(event, sessionID string, attrs ...slog.Attr) {
	l.Emit(slog.LevelDebug, event, sessionID, attrs...)
}
func (l *Log) Info(event, sessionID string, attrs ...slog.Attr) {
	l.Emit(slog.LevelInfo, event, sessionID, attrs...)
}
func (l *Log) Warn(event, sessionID string, attrs ...slog.Attr) {
	l.Emit(slog.LevelWarn, event, sessionID, attrs...)
}
func (l *Log) Error(event, sessionID string, attrs ...slog.Attr) {
	l.Emit(slog.LevelError, event, sessionID, attrs...)
}

// Err returns the last error writing the log, if any.
func (l *Log) Err() error {
	if l == nil || l.w == nil {
		return nil
	}
	l.w.mu.Lock()
	defer l.w.mu.Unlock()
	return l.w.err
}

// ParseLevel parses debug, info, warn(ing) or error.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, nil
	case "", "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return slog.LevelInfo, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
}

// appendWriter writes each record with one write(2) on a freshly opened
// O_APPEND descriptor, so that records land in the current file even after
// another process rotated it.
type appendWriter struct {
	path    string
	maxSize int64

	mu  sync.Mutex
	err error
}

func (w *appendWriter) Write(p []byte) (int, error) {
	err := w.write(p)
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	// slog would report the error to nobody; the log is best effort.
	return len(p), nil
}

func (w *appendWriter) write(p []byte) error {
	if w.path == "" {
		return nil
	}
	f, err := openAppend(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		if mkErr := os.MkdirAll(filepath.Dir(w.path), 0o700); mkErr != nil {
			return mkErr
		}
		f, err = openAppend(w.path)
	}
	if err != nil {
		return err
	}
	// The size from the descriptor, not a second stat of the path.
	if st, err := f.Stat(); err == nil && st.Size()+int64(len(p)) > w.maxSize {
		f.Close()
		w.maybeRotate(int64(len(p)))
		if f, err = openAppend(w.path); err != nil {
			return err
		}
	}
	// One write(2) for the record (the O_APPEND write is its atomic
	// append), more only after a short write.
	_, err = f.Write(p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openAppend opens the log for appending; a FIFO or a link planted as
// the log is refused, never waited on.
func openAppend(path string) (*os.File, error) { return safeio.OpenAppend(path, 0o600) }

// maybeRotate moves the log to <path>.1 when the next record would take it
// past maxSize. Only one process rotates; the others carry on writing.
func (w *appendWriter) maybeRotate(next int64) {
	st, err := os.Stat(w.path)
	if err != nil || st.Size()+next <= w.maxSize {
		return
	}
	lock, err := os.OpenFile(w.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// Another process may have rotated between our stat and the lock.
	if st, err = os.Stat(w.path); err != nil || st.Size()+next <= w.maxSize {
		return
	}
	os.Rename(w.path, w.path+".1")
}

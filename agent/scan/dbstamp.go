package scan

import (
	"os"

	"github.com/tether-dev/tether/internal/bincodec"
)

// DBStamp identifies the state of an agent's SQLite database (Codex's
// state database, OpenCode's opencode.db) for a reader that keeps what it
// queried: the database file and its write-ahead log, each as size, mtime
// (UnixNano) and inode (0: absent), and whether its -shm file exists
// (the agent running, or not closed cleanly). The agents write through
// the WAL and a checkpoint rewrites the database, so a query is made
// again only when one of them changed.
type DBStamp struct {
	DBSize, DBMTime, WALSize, WALMTime int64
	DBIno, WALIno                      uint64
	SHM                                bool
}

// StampDB stats db and its sidecar files; ok is false when one cannot be
// stat-ed (db missing included).
func StampDB(db string) (st DBStamp, ok bool) {
	fi, err := os.Stat(db)
	if err != nil {
		return DBStamp{}, false
	}
	st = DBStamp{DBSize: fi.Size(), DBMTime: fi.ModTime().UnixNano(), DBIno: Inode(fi)}
	if fi, err := os.Stat(db + "-wal"); err == nil {
		st.WALSize, st.WALMTime, st.WALIno = fi.Size(), fi.ModTime().UnixNano(), Inode(fi)
	} else if !IsNotExist(err) {
		return DBStamp{}, false
	}
	if _, err := os.Stat(db + "-shm"); err == nil {
		st.SHM = true
	} else if !IsNotExist(err) {
		return DBStamp{}, false
	}
	return st, true
}

// Trusts reports whether what was read of the database at rec, at
// checked (UnixNano, taken before the read), still holds for the
// database at st at now, under the directory skip's rules: the stamp is
// the recorded one, neither mtime is within DirRacyWindow of that read
// (a write in the same tick would not show), and the record is less
// than DirRecheck old.
func (rec DBStamp) Trusts(checked int64, st DBStamp, now int64) bool {
	racy := checked - int64(DirRacyWindow)
	return rec == st && st.DBMTime < racy && st.WALMTime < racy && now-checked < int64(DirRecheck)
}

// PutDBStamp writes st and checked in a reader's cache record.
func PutDBStamp(w *bincodec.Writer, st DBStamp, checked int64) {
	for _, v := range []int64{st.DBSize, st.DBMTime, st.WALSize, st.WALMTime, checked} {
		w.Int(v)
	}
	w.Uint(st.DBIno)
	w.Uint(st.WALIno)
	w.Bool(st.SHM)
}

// GetDBStamp reads what PutDBStamp wrote.
func GetDBStamp(r *bincodec.Reader) (st DBStamp, checked int64) {
	for _, p := range []*int64{&st.DBSize, &st.DBMTime, &st.WALSize, &st.WALMTime, &checked} {
		*p = r.Int()
	}
	st.DBIno, st.WALIno = r.Uint(), r.Uint()
	st.SHM = r.Bool()
	return st, checked
}

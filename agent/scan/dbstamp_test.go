package scan_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/scan"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A database that is replaced (another inode), or a WAL or -shm that
// appears, changes the stamp.
func TestStampDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state_5.sqlite")
	write(t, db, "x")
	a, ok := scan.StampDB(db)
	if !ok || a.DBSize != 1 || a.DBIno == 0 || a.WALIno != 0 || a.SHM {
		t.Fatalf("stamp %+v %v", a, ok)
	}
	write(t, db+"-wal", "wal")
	b, _ := scan.StampDB(db)
	if b == a || b.WALSize != 3 {
		t.Errorf("a WAL did not change the stamp: %+v", b)
	}
	write(t, db+"-shm", "")
	if s, _ := scan.StampDB(db); s == b || !s.SHM {
		t.Errorf("a -shm did not change the stamp: %+v", s)
	}
	tmp := db + ".new"
	write(t, tmp, "x")
	fi, _ := os.Stat(db)
	os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
	if err := os.Rename(tmp, db); err != nil {
		t.Fatal(err)
	}
	if c, _ := scan.StampDB(db); c.DBIno == b.DBIno {
		t.Errorf("a replaced database kept its stamp: %+v", c)
	}
	if _, ok := scan.StampDB(filepath.Join(dir, "none")); ok {
		t.Error("a missing database has a stamp")
	}
}

// A record is trusted only for the same stamp, with no mtime in the racy
// window before the read, and while it is younger than DirRecheck.
func TestDBStampTrusts(t *testing.T) {
	old := time.Now().Add(-time.Minute).UnixNano()
	st := scan.DBStamp{DBSize: 1, DBMTime: old, WALMTime: old}
	checked := time.Now().UnixNano()
	if !st.Trusts(checked, st, checked) {
		t.Error("the same stamp, read well after its writes, is not trusted")
	}
	if other := (scan.DBStamp{DBSize: 2, DBMTime: old}); st.Trusts(checked, other, checked) {
		t.Error("another stamp is trusted")
	}
	racy := scan.DBStamp{DBSize: 1, DBMTime: checked, WALMTime: old}
	if racy.Trusts(checked, racy, checked) {
		t.Error("a database written in the read's own tick is trusted")
	}
	if st.Trusts(checked, st, checked+int64(scan.DirRecheck)) {
		t.Error("a record older than DirRecheck is trusted")
	}
}

package codexsessions

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A database that is replaced (another inode), or a WAL that appears,
// changes the stamp.
func TestStampDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "state_5.sqlite")
	write(t, db, "x")
	a, ok := stampDB(db)
	if !ok || a.DBSize != 1 || a.DBIno == 0 || a.WALIno != 0 {
		t.Fatalf("stamp %+v %v", a, ok)
	}
	write(t, db+"-wal", "wal")
	b, _ := stampDB(db)
	if b == a || b.WALSize != 3 {
		t.Errorf("a WAL did not change the stamp: %+v", b)
	}
	tmp := db + ".new"
	write(t, tmp, "x")
	fi, _ := os.Stat(db)
	os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
	if err := os.Rename(tmp, db); err != nil {
		t.Fatal(err)
	}
	if c, _ := stampDB(db); c == b {
		t.Errorf("a replaced database kept its stamp: %+v", c)
	}
	if _, ok := stampDB(filepath.Join(dir, "none")); ok {
		t.Error("a missing database has a stamp")
	}
}

package osfs

import (
	"os"
	"path/filepath"
	"testing"
)

// SyncBatch cannot show durability in a test; it must succeed on files
// that exist, skip one replaced since, and fail on a directory that does
// not exist.
func TestSyncBatch(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "sub", "a")
	if err := os.MkdirAll(filepath.Dir(a), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SyncBatch(dir, []string{a, filepath.Join(dir, "gone")}); err != nil {
		t.Fatalf("SyncBatch: %v", err)
	}
	if err := SyncBatch(filepath.Join(dir, "none"), nil); err == nil {
		t.Fatal("SyncBatch of a missing directory succeeded")
	}
}

package config

import (
	"os"
	"path/filepath"
	"testing"
)

// StampOf: no file is not an error; a path that cannot name a file (a
// regular file used as a directory) is.
func TestStampOfMissing(t *testing.T) {
	dir := t.TempDir()
	if _, ok, err := StampOf(filepath.Join(dir, "config.toml")); ok || err != nil {
		t.Errorf("missing file: ok %v err %v, want false and nil", ok, err)
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := StampOf(filepath.Join(f, "config.toml")); ok || err == nil {
		t.Errorf("path through a file: ok %v err %v, want an error", ok, err)
	}
	s, ok, err := StampOf(f)
	if !ok || err != nil || s.Size != 1 || s.Ino == 0 {
		t.Errorf("existing file: %+v %v %v", s, ok, err)
	}
}

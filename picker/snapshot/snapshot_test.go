package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/catalog"
)

func TestSnapshotRoundTripIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "snap.gob")
	ss := synthetic(3)
	ss[0].Evidence = &catalog.Evidence{FilesRead: []string{"/x"}}
	if err := Save(path, ss); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v, %v", fi.Mode(), err)
	}
	got, _ := Load(path)
	if len(got) != 3 || got[1].Title != ss[1].Title || got[0].Evidence != nil {
		t.Errorf("round trip: %+v", got)
	}
	os.WriteFile(path, []byte("garbage"), 0o600)
	if got, _ := Load(path); got != nil {
		t.Error("a corrupt snapshot was not ignored")
	}
}

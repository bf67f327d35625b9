package archive_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/archive"
)

// An export is stored compressed with its stamp; the same stamp is
// unchanged (nothing written); a new one replaces it; one with fewer
// messages keeps the earlier export aside first.
func TestPutExport(t *testing.T) {
	st := &archive.Store{Dir: filepath.Join(t.TempDir(), "archive")}
	id := "ses_abc"
	v1 := []byte(`{"info":{"id":"ses_abc"},"messages":[1,2,3]}`)
	one := archive.Stamp{UpdatedNano: 1000, Messages: 3}
	if _, ok := st.ExportStamp("opencode", id); ok {
		t.Fatal("a stamp before anything was stored")
	}
	res, err := st.PutExport("opencode", id, v1, one)
	if err != nil || res.Action != archive.Exported || res.Bytes != int64(len(v1)) {
		t.Fatalf("first put: %+v %v", res, err)
	}
	if got, ok := st.ExportStamp("opencode", id); !ok || got != one {
		t.Fatalf("stamp %+v %v, want %+v", got, ok, one)
	}
	fi, err := os.Stat(res.Stored)
	if err != nil || fi.Mode().Perm() != 0o600 || !archive.IsCompressed(res.Stored) || archive.ExportID(res.Stored) != id {
		t.Fatalf("stored %s: %v %v", res.Stored, fi, err)
	}
	if back, err := archive.ReadExport(res.Stored); err != nil || !bytes.Equal(back, v1) {
		t.Fatalf("read back %q %v", back, err)
	}
	if res, err := st.PutExport("opencode", id, []byte("ignored"), one); err != nil || res.Action != archive.Unchanged {
		t.Fatalf("same stamp: %+v %v", res, err)
	}
	v2 := []byte(`{"info":{"id":"ses_abc"},"messages":[1,2,3,4]}`)
	if res, err := st.PutExport("opencode", id, v2, archive.Stamp{UpdatedNano: 2000, Messages: 4}); err != nil || res.Action != archive.Exported || res.Kept != "" {
		t.Fatalf("grown: %+v %v", res, err)
	}
	// Reverted to fewer messages: the export with more is kept.
	v3 := []byte(`{"info":{"id":"ses_abc"},"messages":[1]}`)
	res, err = st.PutExport("opencode", id, v3, archive.Stamp{UpdatedNano: 3000, Messages: 1})
	if err != nil || res.Kept == "" {
		t.Fatalf("shrunk: %+v %v", res, err)
	}
	if kept, err := archive.ReadExport(res.Kept); err != nil || !bytes.Equal(kept, v2) {
		t.Errorf("kept %q %v, want %q", kept, err, v2)
	}
	if back, _ := archive.ReadExport(res.Stored); !bytes.Equal(back, v3) {
		t.Errorf("stored %q, want %q", back, v3)
	}
}

// An id that is not a plain file name is refused, nothing written.
func TestExportPathRefusesPaths(t *testing.T) {
	st := &archive.Store{Dir: filepath.Join(t.TempDir(), "archive")}
	for _, id := range []string{"", "../x", "a/b", ".hidden", "x\x00y"} {
		if _, err := st.PutExport("opencode", id, []byte("{}"), archive.Stamp{}); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
	if _, err := os.Stat(st.Dir); !os.IsNotExist(err) {
		t.Errorf("the archive was created: %v", err)
	}
}

// The index lists exports, gone when the agent no longer has the session.
func TestIndexExports(t *testing.T) {
	st := &archive.Store{Dir: filepath.Join(t.TempDir(), "archive")}
	for _, id := range []string{"ses_live", "ses_gone"} {
		if _, err := st.PutExport("opencode", id, []byte("{}"), archive.Stamp{UpdatedNano: 5e9, Messages: 1}); err != nil {
			t.Fatal(err)
		}
	}
	var ix archive.Index
	err := st.IndexExports(&ix, "opencode", func(id string) (string, bool) { return "/db", id == "ses_live" })
	if err != nil || len(ix.Entries) != 2 {
		t.Fatalf("%+v %v", ix, err)
	}
	for _, e := range ix.Entries {
		if e.Mode != archive.ModeExport || e.LiveGone != (e.ID == "ses_gone") || e.LastWrite.UnixNano() != 5e9 {
			t.Errorf("entry %+v", e)
		}
	}
}

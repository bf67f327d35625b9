package state

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHooksRecordRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	rec, err := LoadHooksRecord(dir)
	if err != nil || len(rec.Files) != 0 {
		t.Fatalf("missing record: %+v, %v", rec, err)
	}
	// A symlinked settings file is recorded under its target.
	target := filepath.Join(t.TempDir(), "settings.json")
	link := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(target, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	key := HooksRecordKey(link)
	if key != HooksRecordKey(target) {
		t.Fatalf("key of the link %s, of the target %s", key, HooksRecordKey(target))
	}
	rec.Remember(key, "tether hook", "", "tether hook").UserStatusLine = `{"command":"mine"}`
	if err := rec.Save(dir); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(HooksRecordPath(dir)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v, %v", st, err)
	}
	got, err := LoadHooksRecord(dir)
	if err != nil || !slices.Equal(got.Commands(key), []string{"tether hook"}) || got.Files[key].UserStatusLine != `{"command":"mine"}` {
		t.Fatalf("reloaded %+v, %v", got.Files[key], err)
	}
	if err := os.WriteFile(HooksRecordPath(dir), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadHooksRecord(dir); err == nil {
		t.Error("a damaged record loaded without an error")
	}
}

func TestCodexTrustRecord(t *testing.T) {
	dir := t.TempDir()
	const hooks = "/home/example/.codex/hooks.json"
	for _, on := range []bool{true, true, false} {
		if err := RecordCodexTrust(dir, hooks, on); err != nil {
			t.Fatal(err)
		}
		if got := CodexInstalledWithTrust(dir, hooks); got != on {
			t.Errorf("after RecordCodexTrust(%v): installed with trust %v", on, got)
		}
	}
}

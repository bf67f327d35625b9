package searchindex

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// countOf is what the index's count reader says of path now.
func countOf(t *testing.T, dbPath, path string) (catalog.MessageCount, bool) {
	t.Helper()
	look, err := Counts(dbPath).Load()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return look(path, fi.Size(), fi.ModTime().UnixNano())
}

// wholeCount is the catalog's count of the whole file.
func wholeCount(t *testing.T, harness, path string) catalog.MessageCount {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mc catalog.MessageCount
	if _, err := catalog.TextsCounted(harness, f, &mc, func(catalog.Text) {}); err != nil {
		t.Fatal(err)
	}
	return mc
}

func TestIndexCountsMessages(t *testing.T) {
	f := newFixture(t)
	db := f.ix.Path()
	// Two records of one assistant message (same id) are one message.
	claude := f.session(catalog.ClaudeCode, "c1", "t", userLine("one")+assistantLine("a", "Read", "/x")+assistantLine("b", "Read", "/y"), 0)
	codex := f.session(catalog.Codex, "x1", "t", codexLine("response_item", "message", map[string]any{"role": "user", "content": []any{}})+
		codexLine("response_item", "message", map[string]any{"role": "assistant", "content": []any{}})+
		codexLine("event_msg", "user_message", map[string]any{"message": "hi"}), 0)
	before := Counts(db).Stamp()
	f.update()
	if s := Counts(db).Stamp(); s == "" || s == before {
		t.Errorf("stamp %q after an update, %q before", s, before)
	}
	if mc, ok := countOf(t, db, claude); !ok || mc.N != 2 || mc != wholeCount(t, catalog.ClaudeCode, claude) {
		t.Errorf("claude: %+v %v", mc, ok)
	}
	if mc, ok := countOf(t, db, codex); !ok || mc.N != 2 {
		t.Errorf("codex: %+v %v", mc, ok)
	}
	// Appended: the continuation of the last message is not a new one;
	// only the new bytes are read.
	more := assistantLine("c", "Read", "/z") + userLine("two")
	appendTo(t, claude, more)
	if st := f.update(); st.BytesRead != int64(len(more)) {
		t.Fatalf("append read %d bytes", st.BytesRead)
	}
	if mc, ok := countOf(t, db, claude); !ok || mc.N != 3 || mc != wholeCount(t, catalog.ClaudeCode, claude) {
		t.Errorf("after append: %+v %v", mc, ok)
	}
	// Not current for a file that changed since: no answer.
	appendTo(t, claude, userLine("three"))
	if _, ok := countOf(t, db, claude); ok {
		t.Error("count of a changed file")
	}
	// Rewritten: counted again from the start.
	os.WriteFile(claude, []byte(userLine("only")), 0o644)
	os.Chtimes(claude, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	f.update()
	if mc, ok := countOf(t, db, claude); !ok || mc.N != 1 {
		t.Errorf("rewritten: %+v %v", mc, ok)
	}
}

func TestCountsWithoutIndex(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.db")
	c := Counts(missing)
	if c.Stamp() != "" {
		t.Errorf("stamp of a missing index: %q", c.Stamp())
	}
	if _, err := c.Load(); err == nil {
		t.Error("loaded a missing index")
	}
	// Nothing was created.
	if _, err := os.Stat(missing); err == nil {
		t.Error("index created")
	}
}

package searchindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

var ctx = context.Background()

func userLine(text string) string {
	b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": "s", "cwd": "/home/example/p",
		"timestamp": "2026-11-30T10:00:00Z", "message": map[string]any{"role": "user", "content": text}})
	return string(b) + "\n"
}

func assistantLine(text, tool, path string) string {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "sessionId": "s", "timestamp": "2026-11-30T10:00:01Z",
		"message": map[string]any{"role": "assistant", "id": "m1", "content": []any{
			map[string]any{"type": "text", "text": text},
			map[string]any{"type": "tool_use", "id": "t1", "name": tool, "input": map[string]any{"file_path": path}},
		}}})
	return string(b) + "\n"
}

func codexLine(typ, ptype string, payload map[string]any) string {
	payload["type"] = ptype
	b, _ := json.Marshal(map[string]any{"timestamp": "2026-11-30T10:00:00Z", "type": typ, "payload": payload})
	return string(b) + "\n"
}

type fixture struct {
	t   *testing.T
	dir string
	ix  *Index
	ss  []catalog.Session
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	ix, err := Open(filepath.Join(dir, "cache", "tether", "search.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &fixture{t: t, dir: dir, ix: ix}
}

// session writes a transcript and lists it.
func (f *fixture) session(harness, id, title, content string, age time.Duration) string {
	path := filepath.Join(f.dir, "t", id+".jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.ss = append(f.ss, catalog.Session{Harness: harness, ID: id, Title: title, Source: path,
		LastActivity: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(-age)})
	return path
}

func (f *fixture) update() UpdateStats {
	f.t.Helper()
	st, err := f.ix.Update(ctx, f.ss, UpdateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// find returns the keys matching q, best first.
func (f *fixture) find(q string, allText bool) []string {
	f.t.Helper()
	terms, err := ParseQuery(q)
	if err != nil {
		f.t.Fatalf("%q: %v", q, err)
	}
	hits, err := f.ix.Search(ctx, Query{Terms: terms, AllText: allText})
	if err != nil {
		f.t.Fatalf("%q: %v", q, err)
	}
	keys := []string{}
	for _, h := range hits {
		keys = append(keys, h.Key)
	}
	return keys
}

func appendTo(t *testing.T, path, s string) {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(s)
	fh.Close()
}

func TestIndexFindsPromptsTitlesAssistantAndTools(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "c1", "Fix the walrus parser", userLine("please look at the tokenizer")+
		assistantLine("the harpoon module is fine", "Edit", "/home/example/p/internal/lexer.go"), time.Hour)
	f.session(catalog.Codex, "x1", "codex thread", codexLine("event_msg", "user_message", map[string]any{"message": "migrate the database"})+
		codexLine("response_item", "message", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "migration narwhal done"}}})+
		codexLine("response_item", "function_call", map[string]any{"name": "exec_command", "call_id": "c", "arguments": `{"cmd":"go test ./pkg/quokka"}`}), 2*time.Hour)
	if st := f.update(); st.Added != 2 {
		t.Fatalf("stats %+v", st)
	}
	for _, c := range []struct {
		q       string
		allText bool
		want    []string
	}{
		{"walrus", false, []string{"claude-code:c1"}},
		{"TOKENIZER", false, []string{"claude-code:c1"}},
		{"harpoon", false, []string{}},
		{"harpoon", true, []string{"claude-code:c1"}},
		{"lexer.go", true, []string{"claude-code:c1"}},
		{"Edit lexer", true, []string{"claude-code:c1"}},
		{"migrate database", false, []string{"codex:x1"}},
		{"narwhal", true, []string{"codex:x1"}},
		{"quokka", true, []string{"codex:x1"}},
		{"exec_command", true, []string{"codex:x1"}},
		{"walrus migrate", false, []string{}}, // every word, in one session
	} {
		if got := f.find(c.q, c.allText); !slices.Equal(got, c.want) {
			t.Errorf("%q all=%v: %v, want %v", c.q, c.allText, got, c.want)
		}
	}
}

func TestIndexAppendReadsOnlyNewLines(t *testing.T) {
	f := newFixture(t)
	first := userLine("alpha bravo")
	path := f.session(catalog.ClaudeCode, "c1", "t", first, 0)
	f.update()
	// A line still being written is not read yet…
	more := userLine("charlie delta")
	appendTo(t, path, more[:20])
	st := f.update()
	if st.Appended != 1 || st.BytesRead != 0 || len(f.find("charlie", false)) != 0 {
		t.Fatalf("partial line: %+v", st)
	}
	// …and once complete, only it is read.
	appendTo(t, path, more[20:])
	st = f.update()
	if st.Appended != 1 || st.Reindexed != 0 || st.BytesRead != int64(len(more)) {
		t.Fatalf("append: %+v, want %d bytes read", st, len(more))
	}
	if got := f.find("charlie", false); len(got) != 1 || len(f.find("alpha", false)) != 1 {
		t.Errorf("after append: charlie %v", got)
	}
	// Both old and new text: one session with both words.
	if got := f.find("alpha delta", false); len(got) != 1 {
		t.Errorf("old and new text: %v", got)
	}
	if st := f.update(); st.Unchanged != 1 || st.BytesRead != 0 {
		t.Errorf("unchanged: %+v", st)
	}
}

func TestIndexRewriteAndShrinkReindex(t *testing.T) {
	f := newFixture(t)
	path := f.session(catalog.ClaudeCode, "c1", "t", userLine("original words here")+userLine("second prompt"), 0)
	f.update()
	// Shrunk (a trim): read again.
	os.WriteFile(path, []byte(userLine("trimmed text")), 0o644)
	if st := f.update(); st.Reindexed != 1 {
		t.Fatalf("shrink: %+v", st)
	}
	if len(f.find("original", false)) != 0 || len(f.find("trimmed", false)) != 1 {
		t.Errorf("shrink kept old text or lost new")
	}
	// Rewritten to a longer file whose start changed: not an append.
	os.WriteFile(path, []byte(userLine("replaced start")+userLine("trimmed text")+userLine("and more")), 0o644)
	if st := f.update(); st.Reindexed != 1 {
		t.Fatalf("rewrite: %+v", st)
	}
	if len(f.find("trimmed", false)) != 1 || len(f.find("replaced", false)) != 1 {
		t.Errorf("rewrite lost text")
	}
	// Same size, different bytes before the offset.
	b, _ := os.ReadFile(path)
	b = []byte(strings.Replace(string(b), "replaced", "REWROTE!", 1))
	os.WriteFile(path, b, 0o644)
	os.Chtimes(path, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	if st := f.update(); st.Reindexed != 1 || len(f.find("replaced", false)) != 0 || len(f.find("rewrote", false)) != 1 {
		t.Errorf("same-size rewrite: %+v", st)
	}
}

func TestIndexRemovesDeletedSessionsUnlessRetained(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "c1", "t", userLine("kept words"), 0)
	f.session(catalog.ClaudeCode, "c2", "t", userLine("gone words"), 0)
	f.update()
	all := f.ss
	f.ss = all[:1]
	st, err := f.ix.Update(ctx, f.ss, UpdateOptions{Retain: func(key string) bool { return key == "claude-code:c2" }})
	if err != nil || st.Removed != 0 || len(f.find("gone", false)) != 1 {
		t.Fatalf("retained: %+v %v", st, err)
	}
	if st := f.update(); st.Removed != 1 || len(f.find("gone", false)) != 0 || len(f.find("kept", false)) != 1 {
		t.Errorf("removed: %+v", st)
	}
	if n, _ := f.ix.Count(ctx); n != 1 {
		t.Errorf("%d rows", n)
	}
}

func TestIndexTitleChangesAndRanking(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "old", "unrelated", userLine("gizmo"), 3*time.Hour)
	f.session(catalog.ClaudeCode, "title", "the gizmo session", userLine("nothing"), 2*time.Hour)
	f.session(catalog.ClaudeCode, "new", "unrelated", userLine("gizmo"), time.Hour)
	f.update()
	// The title hit first; equal prompt hits newest first.
	want := []string{"claude-code:title", "claude-code:new", "claude-code:old"}
	if got := f.find("gizmo", false); !slices.Equal(got, want) {
		t.Errorf("ranking %v, want %v", got, want)
	}
	f.ss[1].Title = "renamed"
	f.update()
	if got := f.find("renamed", false); len(got) != 1 || len(f.find("gizmo", false)) != 2 {
		t.Errorf("retitle: %v", got)
	}
}

func TestPhrasePrefixAndSnippets(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "a", "t", userLine("the quick brown fox jumps over the migration plan"), 0)
	f.session(catalog.ClaudeCode, "b", "t", userLine("brown quick fox; migrating later"), 0)
	f.update()
	for _, c := range []struct {
		q    string
		want int
	}{
		{`"quick brown"`, 1}, {`quick brown`, 2}, {`"brown quick"`, 1},
		{`migrat*`, 2}, {`migration`, 1}, {`migr`, 0}, {`"quick bro"*`, 1},
	} {
		if got := f.find(c.q, false); len(got) != c.want {
			t.Errorf("%s: %v, want %d", c.q, got, c.want)
		}
	}
	terms, _ := ParseQuery(`"quick brown"`)
	hits, err := f.ix.Search(ctx, Query{Terms: terms})
	if err != nil || len(hits) != 1 || len(hits[0].Snippets) != 1 {
		t.Fatalf("%+v %v", hits, err)
	}
	sn := hits[0].Snippets[0]
	var marked []string
	for _, h := range sn.Highlights {
		marked = append(marked, sn.Text[h[0]:h[1]])
	}
	if sn.Field != "prompt" || !slices.Equal(marked, []string{"quick brown"}) || strings.ContainsAny(sn.Text, markOpen+markClose) {
		t.Errorf("snippet %+v: marked %q", sn, marked)
	}
}

func TestFilterAndLimit(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"a", "b", "c"} {
		f.session(catalog.ClaudeCode, id, "t", userLine("common word"), 0)
	}
	f.update()
	terms, _ := ParseQuery("common")
	hits, _ := f.ix.Search(ctx, Query{Terms: terms, Keep: func(k string) bool { return k != "claude-code:b" }})
	if len(hits) != 2 || hits[0].Key == "claude-code:b" || hits[1].Key == "claude-code:b" {
		t.Errorf("keep: %+v", hits)
	}
	hits, _ = f.ix.Search(ctx, Query{Terms: terms, Limit: 1, Keep: func(k string) bool { return k != "claude-code:a" }})
	if len(hits) != 1 || hits[0].Key == "claude-code:a" {
		t.Errorf("limit after keep: %+v", hits)
	}
}

// TestHostileQueries: nothing a user types is an FTS5 syntax error.
func TestHostileQueries(t *testing.T) {
	f := newFixture(t)
	f.session(catalog.ClaudeCode, "a", `NEAR(x y) "quoted" title:col AND OR NOT`, userLine(`he said "AND" or NOT; col:val ^start (paren) a*b`), 0)
	f.update()
	for _, q := range []string{
		`"`, `""`, `"""`, `AND`, `OR`, `NOT`, `a OR`, `NEAR(a b)`, `NEAR`, `(`, `)`, `((paren`, `*`, `**`, `a**`,
		`^start`, `col:val`, `title:x`, `{title}: x`, `-foo`, `+foo`, `foo"bar`, `"unterminated phrase`, `'single'`,
		"tab\tsep", "nul\x00byte", "\x1b[31mred", `\`, `a AND`, `said "AND`, `* said`, `ü`, `日本語`, "\u202eevil",
	} {
		terms, err := ParseQuery(q)
		if errors.Is(err, ErrEmptyQuery) {
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", q, err)
			continue
		}
		for _, all := range []bool{false, true} {
			if _, err := f.ix.Search(ctx, Query{Terms: terms, AllText: all}); err != nil {
				t.Errorf("%q (all=%v): %v", q, all, err)
			}
		}
	}
	// Operators are words.
	for _, q := range []string{"NOT", `"AND"`, "col:val", "^start", "NEAR(x y)", "paren)"} {
		if got := f.find(q, false); len(got) != 1 {
			t.Errorf("%q: %v", q, got)
		}
	}
}

func TestParseQuery(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []Term
	}{
		{`a b`, []Term{{"a", false}, {"b", false}}},
		{`  "two words"  c* `, []Term{{"two words", false}, {"c", true}}},
		{`"ph rase"*`, []Term{{"ph rase", true}}},
		{`"open`, []Term{{"open", false}}},
		{`x"y z"`, []Term{{"x", false}, {"y z", false}}},
		{`-- ** ""`, nil},
	} {
		got, err := ParseQuery(c.q)
		if c.want == nil {
			if !errors.Is(err, ErrEmptyQuery) {
				t.Errorf("%q: %v %v, want ErrEmptyQuery", c.q, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v %v, want %v", c.q, got, err, c.want)
		}
	}
}

func TestIndexFileModesAndRebuild(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache", "tether", "search.db")
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode())
	}
	// The journal a write leaves takes the database file's mode.
	tr := filepath.Join(dir, "t.jsonl")
	os.WriteFile(tr, []byte(userLine("hello")), 0o644)
	if _, err := ix.Update(ctx, []catalog.Session{{Harness: catalog.ClaudeCode, ID: "a", Source: tr}}, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-journal"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("journal %v %v", fi, err)
	}
	if fi, _ := os.Stat(filepath.Dir(path)); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode())
	}
	ix.Close()
	if n, err := Size(path); err != nil || n == 0 {
		t.Errorf("size %d %v", n, err)
	}
	// A damaged index (it is a cache) is rebuilt, not an error.
	os.Remove(path + "-journal")
	os.WriteFile(path, []byte("this is not a database, it is garbage that is long enough to have a header...."), 0o600)
	ix, err = Open(path)
	if err != nil {
		t.Fatalf("corrupt index: %v", err)
	}
	if n, err := ix.Count(ctx); err != nil || n != 0 {
		t.Errorf("rebuilt: %d %v", n, err)
	}
	ix.Close()
	if n, _ := Size(filepath.Join(dir, "none.db")); n != 0 {
		t.Errorf("no index: size %d", n)
	}
}

// TestDamagedIndexIsReported: damage found after Open (a page overwritten)
// is an error IsCorrupt recognises, and Remove clears the way to a rebuild.
func TestDamagedIndexIsReported(t *testing.T) {
	f := newFixture(t)
	for i := range 200 {
		f.session(catalog.ClaudeCode, fmt.Sprintf("s%03d", i), "t", userLine(strings.Repeat(fmt.Sprintf("word%d filler text ", i), 50)), 0)
	}
	f.update()
	path := f.ix.Path()
	f.ix.Close()
	b, _ := os.ReadFile(path)
	for i := 4096 * 2; i < len(b); i++ {
		b[i] = 0xA5
	}
	os.WriteFile(path, b, 0o600)
	ix, err := Open(path)
	if err == nil {
		defer ix.Close()
		terms, _ := ParseQuery("word7")
		_, err = ix.Search(ctx, Query{Terms: terms})
		if err == nil {
			_, err = ix.Update(ctx, f.ss, UpdateOptions{})
		}
	}
	if !IsCorrupt(err) {
		t.Fatalf("damaged index: %v, want a corruption error", err)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ix2.Close()
}

// TestManyHitsAllHaveSnippets: more hits than one snippet batch.
func TestManyHitsAllHaveSnippets(t *testing.T) {
	f := newFixture(t)
	for i := range 600 {
		f.session(catalog.ClaudeCode, fmt.Sprintf("s%04d", i), "t", userLine(fmt.Sprintf("shared word %d", i)), 0)
	}
	f.update()
	terms, _ := ParseQuery("shared")
	hits, err := f.ix.Search(ctx, Query{Terms: terms})
	if err != nil || len(hits) != 600 {
		t.Fatalf("%d hits, %v", len(hits), err)
	}
	for _, h := range hits {
		if len(h.Snippets) != 1 || h.Snippets[0].Field != "prompt" {
			t.Fatalf("%s: snippets %+v", h.Key, h.Snippets)
		}
	}
}

package searchindex

import (
	"context"
	"database/sql"
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

// summaries is a fake summary store: each session's stamp and text, and
// how many times a text was read.
type summaries struct {
	stamp, text map[string]string
	reads       int
}

func (s *summaries) opts() UpdateOptions {
	return UpdateOptions{
		SummaryStamp: func(ss *catalog.Session) string { return s.stamp[ss.Key()] },
		SummaryText: func(ss *catalog.Session) (string, error) {
			s.reads++
			return s.text[ss.Key()], nil
		},
	}
}

func (f *fixture) updateWith(o UpdateOptions) UpdateStats {
	f.t.Helper()
	st, err := f.ix.Update(ctx, f.ss, o)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// TestIndexSummaries: a summary is searched with the titles and prompts;
// it is read again only when its stamp changes, and leaves the index
// when it is deleted, whatever the transcript does.
func TestIndexSummaries(t *testing.T) {
	f := newFixture(t)
	path := f.session(catalog.ClaudeCode, "c1", "a title", userLine("please look at the tokenizer"), time.Hour)
	f.session(catalog.ClaudeCode, "c2", "other", userLine("nothing here"), 2*time.Hour)
	sum := &summaries{stamp: map[string]string{"claude-code:c1": "s1"},
		text: map[string]string{"claude-code:c1": "Platypus refactor\nsplit the lexer"}}
	if st := f.updateWith(sum.opts()); st.Added != 2 || st.Summaries != 1 || sum.reads != 1 {
		t.Fatalf("first build: stats %+v, %d reads", st, sum.reads)
	}
	if got := f.find("platypus", false); !slices.Equal(got, []string{"claude-code:c1"}) {
		t.Fatalf("platypus: %v", got)
	}
	// A word in the summary and one in a prompt: both must match, across columns.
	if got := f.find("platypus tokenizer", false); !slices.Equal(got, []string{"claude-code:c1"}) {
		t.Fatalf("platypus tokenizer: %v", got)
	}
	terms, _ := ParseQuery("platypus")
	hits, err := f.ix.Search(ctx, Query{Terms: terms})
	if err != nil || len(hits) != 1 || len(hits[0].Snippets) != 1 || hits[0].Snippets[0].Field != "summary" ||
		!strings.Contains(hits[0].Snippets[0].Text, "Platypus refactor") {
		t.Fatalf("snippets %+v %v", hits, err)
	}
	// Unchanged: nothing is read, nothing written.
	if st := f.updateWith(sum.opts()); st.Summaries != 0 || sum.reads != 1 {
		t.Fatalf("unchanged: stats %+v, %d reads", st, sum.reads)
	}
	// The transcript grows, then is rewritten: the summary stays.
	appendTo(t, path, userLine("more about the wombat"))
	f.updateWith(sum.opts())
	os.WriteFile(path, []byte(userLine("all new echidna")), 0o644)
	if st := f.updateWith(sum.opts()); st.Reindexed != 1 || sum.reads != 1 {
		t.Fatalf("rewrite: stats %+v, %d reads", st, sum.reads)
	}
	if got := f.find("platypus echidna", false); len(got) != 1 {
		t.Fatalf("summary lost when the transcript was re-read: %v", got)
	}
	// Redone with other words: the new ones match, the old ones do not.
	sum.stamp["claude-code:c1"], sum.text["claude-code:c1"] = "s2", "Kangaroo migration"
	if st := f.updateWith(sum.opts()); st.Summaries != 1 || sum.reads != 2 {
		t.Fatalf("redone: stats %+v, %d reads", st, sum.reads)
	}
	if got := f.find("kangaroo", false); len(got) != 1 {
		t.Errorf("new summary not found: %v", got)
	}
	if got := f.find("platypus", true); len(got) != 0 {
		t.Errorf("old summary still found: %v", got)
	}
	// Deleted: it leaves the index, the session stays.
	delete(sum.stamp, "claude-code:c1")
	if st := f.updateWith(sum.opts()); st.Summaries != 1 || sum.reads != 2 {
		t.Fatalf("deleted: stats %+v, %d reads", st, sum.reads)
	}
	if got := f.find("kangaroo", true); len(got) != 0 {
		t.Errorf("deleted summary still found: %v", got)
	}
	if got := f.find("echidna", false); len(got) != 1 {
		t.Errorf("session lost with its summary: %v", got)
	}
	// A summary on a session indexed before it had one, then a new session with one.
	sum.stamp["claude-code:c2"], sum.text["claude-code:c2"] = "s3", "Quokka audit"
	f.session(catalog.Codex, "x1", "codex", codexLine("event_msg", "user_message", map[string]any{"message": "hello"}), time.Hour)
	sum.stamp["codex:x1"], sum.text["codex:x1"] = "s4", "Quokka review"
	if st := f.updateWith(sum.opts()); st.Summaries != 2 {
		t.Fatalf("stats %+v", st)
	}
	if got := f.find("quokka", false); len(got) != 2 {
		t.Errorf("quokka: %v", got)
	}
}

// TestOldSchemaIsRebuilt: an index of schema 1 (no summary column) is
// dropped and rebuilt by Open, and then takes summaries.
func TestOldSchemaIsRebuilt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "search.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE files(id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, path TEXT NOT NULL, size INTEGER NOT NULL,
			mtime INTEGER NOT NULL, off INTEGER NOT NULL, head BLOB, tail BLOB, title TEXT NOT NULL, last INTEGER NOT NULL)`,
		`CREATE VIRTUAL TABLE docs USING fts5(title, prompt, assistant, tool)`,
		`INSERT INTO files(key, path, size, mtime, off, title, last) VALUES('claude-code:a', '', 0, 0, 0, 't', 0)`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	f := &fixture{t: t, dir: t.TempDir()}
	if f.ix, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer f.ix.Close()
	if n, err := f.ix.Count(ctx); err != nil || n != 0 {
		t.Fatalf("old index kept: %d %v", n, err)
	}
	f.session(catalog.ClaudeCode, "a", "t", userLine("hello"), time.Hour)
	sum := &summaries{stamp: map[string]string{"claude-code:a": "s"}, text: map[string]string{"claude-code:a": "Wombat"}}
	f.updateWith(sum.opts())
	if got := f.find("wombat", false); len(got) != 1 {
		t.Errorf("summary after rebuild: %v", got)
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/searchindex"
	"github.com/tether-dev/tether/summarize"
)

// searchKeys runs a search with --json and returns the engine and the
// result keys, sorted.
func searchKeys(t *testing.T, ta *testApp, args ...string) (string, []string) {
	t.Helper()
	ta.out.Reset()
	ta.run(append([]string{"sessions", "search", "--json", "--limit", "0"}, args...)...)
	m := validate(t, "search", ta.out.Bytes())
	keys := []string{}
	for _, r := range m["results"].([]any) {
		s := r.(map[string]any)["session"].(map[string]any)
		keys = append(keys, s["harness"].(string)+":"+s["id"].(string))
	}
	slices.Sort(keys)
	return m["engine"].(string), keys
}

// TestSearchIndexMatchesStreaming: for whole-word queries the index finds
// exactly the sessions the transcript scan finds.
func TestSearchIndexMatchesStreaming(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	c, err := ta.catalogFor("")
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := c.List(context.Background(), catalog.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"please", "run echo", "RUN", "again", "tool_bash", "tool said", "hi", "echo", "fake model", "proj", "zzz"} {
		for _, allText := range []bool{false, true} {
			var stream []string
			for _, r := range catalog.Search(context.Background(), all, q, catalog.SearchOptions{AllText: allText}) {
				stream = append(stream, r.Session.Key())
			}
			slices.Sort(stream)
			args := []string{q}
			if allText {
				args = append(args, "--all-text")
			}
			engine, got := searchKeys(t, ta, args...)
			if engine != "index" || !slices.Equal(got, append([]string{}, stream...)) {
				t.Errorf("%q all=%v: index (%s) %v, streaming %v", q, allText, engine, got, stream)
			}
		}
	}
}

func TestSearchFiltersAndIndexFile(t *testing.T) {
	ta := newTestApp(t)
	ta.Now = func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }
	withSessions(t, ta, "")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"please"}, 3},
		{[]string{"please", "--harness", "codex"}, 1},
		{[]string{"please", "--harness", "claude-code"}, 2},
		{[]string{"please", "--cwd", "/home/example/src/codex-proj/"}, 1},
		{[]string{"please", "--since", "1h"}, 0},
		{[]string{"please", "--since", "100000d"}, 3},
		{[]string{"please", "--state", "running"}, 0},
		{[]string{"please", "--state", "resumable"}, 3},
	} {
		if _, got := searchKeys(t, ta, c.args...); len(got) != c.want {
			t.Errorf("%v: %v, want %d", c.args, got, c.want)
		}
	}
	// A --harness search does not drop the other harness from the index.
	if _, got := searchKeys(t, ta, "again"); len(got) != 1 {
		t.Errorf("codex session lost from the index after --harness claude-code: %v", got)
	}
	idx := filepath.Join(ta.env["XDG_CACHE_HOME"], "tether", "search.db")
	if fi, err := os.Stat(idx); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("index %v %v", fi, err)
	}
	if code := ta.run("sessions", "search", "--state", "bogus", "x"); code != 2 {
		t.Errorf("bad --state: exit %d", code)
	}
	if code := ta.run("sessions", "search", `"" ** --`); code != 2 {
		t.Errorf("query without words: exit %d", code)
	}
	ta.out.Reset()
	ta.run("doctor")
	if !strings.Contains(ta.out.String(), "search     index "+idx+", ") {
		t.Errorf("doctor does not report the index size:\n%s", ta.out)
	}
}

// TestSearchFallsBackToStreaming: when the index cannot be opened the
// transcripts are scanned, and stderr says so.
func TestSearchFallsBackToStreaming(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	// The cache directory is a file: no index can be created.
	put(t, filepath.Join(ta.env["XDG_CACHE_HOME"], "tether"), []byte("not a directory"))
	engine, got := searchKeys(t, ta, "please")
	if engine != "stream" || len(got) != 3 || !strings.Contains(ta.err.String(), "search index unavailable") {
		t.Errorf("fallback: %s %v, stderr %q", engine, got, ta.err)
	}
}

func TestSearchHighlights(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	hostile := `{"type":"user","sessionId":"e1111111-0000-4000-8000-000000000000","cwd":"/home/example/x","timestamp":"2026-11-30T10:00:00Z",` +
		`"message":{"role":"user","content":"walrus \u001b]0;pwned\u0007 and \u202ereversed\u202c and \u001b[2J"}}` + "\n"
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-x", "e1111111-0000-4000-8000-000000000000.jsonl"), []byte(hostile))
	ta.out.Reset()
	if code := ta.run("sessions", "search", "run", "echo"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	if !strings.Contains(ta.out.String(), "prompt:   TOOL_BASH please **run** **echo**") {
		t.Errorf("plain markers:\n%s", ta.out)
	}
	ta.out.Reset()
	ta.run("sessions", "search", "walrus")
	if out := ta.out.String(); strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, "**walrus**") {
		t.Errorf("hostile snippet reached the terminal: %q", out)
	}
	// On a colour terminal the match is bold and underlined.
	ta.IO.StdoutTTY, ta.IO.NoColor = true, false
	ta.out.Reset()
	ta.run("sessions", "search", "walrus")
	if out := ta.out.String(); !strings.Contains(out, "\x1b[1;4mwalrus\x1b[0m") || strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[2J") {
		t.Errorf("tty highlight: %q", out)
	}
}

// TestSearchProgressLine: a first build of many transcripts shows a
// progress line on a terminal's stderr, and nothing otherwise.
func TestSearchProgressLine(t *testing.T) {
	for _, tty := range []bool{false, true} {
		ta := newTestApp(t)
		ta.IO.StderrTTY = tty
		proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-p")
		for i := range 60 {
			id := fmt.Sprintf("%08d-0000-4000-8000-000000000000", i)
			put(t, filepath.Join(proj, id+".jsonl"), []byte(`{"type":"user","sessionId":"`+id+`","cwd":"/home/example/p","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"capybara number `+fmt.Sprint(i)+`"}}`+"\n"))
		}
		if code := ta.run("sessions", "search", "--json", "--limit", "0", "capybara"); code != 0 {
			t.Fatalf("exit %d: %s", code, ta.err)
		}
		if n := len(validate(t, "search", ta.out.Bytes())["results"].([]any)); n != 60 {
			t.Errorf("%d results", n)
		}
		shown := strings.Contains(ta.err.String(), "indexing transcripts for search: 60/60")
		if shown != tty || tty && !strings.HasSuffix(ta.err.String(), "\r\x1b[K") {
			t.Errorf("tty=%v: stderr %q", tty, ta.err)
		}
		// Nothing to read the second time: no line.
		ta.err.Reset()
		ta.run("sessions", "search", "--json", "capybara")
		if ta.err.Len() != 0 {
			t.Errorf("tty=%v, warm: stderr %q", tty, ta.err)
		}
	}
}

// flakyReader fails its listing while fail is set.
type flakyReader struct {
	catalog.Reader
	fail bool
}

func (f *flakyReader) List(ctx context.Context, o catalog.ListOptions) ([]catalog.Session, []catalog.Diagnostic, error) {
	if f.fail {
		return nil, nil, errors.New("storage root unreadable")
	}
	return f.Reader.List(ctx, o)
}

// TestSearchKeepsEntriesOfAFailedReader: a reader that cannot list for a
// moment does not empty the index of its sessions.
func TestSearchKeepsEntriesOfAFailedReader(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	c, err := ta.catalogFor("")
	if err != nil {
		t.Fatal(err)
	}
	flaky := &flakyReader{Reader: c.Readers[1]}
	c.Readers[1] = flaky
	idx := searchIndexPath(ta.Loc)
	search := func(q string) {
		ta.out.Reset()
		if err := runSessionsSearch(context.Background(), sessionsSearchOptions{
			sessionsBase: sessionsBase{IO: ta.IO, Catalog: c, Now: time.Now}, Query: q, JSON: true, Index: idx}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		ix, err := searchindex.Open(idx)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		n, _ := ix.Count(context.Background())
		return n
	}
	search("please")
	if n := count(); n != 3 {
		t.Fatalf("%d indexed", n)
	}
	flaky.fail = true
	search("please")
	if n := count(); n != 3 {
		t.Errorf("after a failed listing: %d indexed, want 3", n)
	}
}

// TestSearchFindsSummaries: a word only in a session's stored summary
// finds it, through the index and through the streaming fallback; a
// redone summary replaces the old words, a deleted one leaves the index.
func TestSearchFindsSummaries(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	save := func(title, objective string) {
		t.Helper()
		sum := catalog.Summary{Title: title, Objective: objective, Completed: "c", CurrentWork: "w", LikelyNext: "n",
			Provider: "command", Created: time.Now()}
		if err := summarize.Save(ta.Loc.DataDir, catalog.Codex, codexID, sum); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{catalog.Codex + ":" + codexID}
	if _, got := searchKeys(t, ta, "platypus"); len(got) != 0 {
		t.Fatalf("platypus before any summary: %v", got)
	}
	save("Platypus refactor", "split the lexer")
	if engine, got := searchKeys(t, ta, "platypus"); engine != "index" || !slices.Equal(got, want) {
		t.Fatalf("summary word: %s %v", engine, got)
	}
	ta.out.Reset()
	ta.run("sessions", "search", "lexer")
	if !strings.Contains(ta.out.String(), "summary:") || !strings.Contains(ta.out.String(), "**lexer**") {
		t.Errorf("no summary snippet:\n%s", ta.out)
	}
	save("Kangaroo migration", "move the tables")
	if _, got := searchKeys(t, ta, "kangaroo"); !slices.Equal(got, want) {
		t.Errorf("redone summary not found: %v", got)
	}
	if _, got := searchKeys(t, ta, "platypus", "--all-text"); len(got) != 0 {
		t.Errorf("old summary still found: %v", got)
	}
	p, _ := summarize.Path(ta.Loc.DataDir, catalog.Codex, codexID)
	// The streaming fallback reads summaries too.
	if got := streamKeys(t, ta, "kangaroo"); !slices.Equal(got, want) {
		t.Errorf("streaming: %v", got)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, got := searchKeys(t, ta, "kangaroo", "--all-text"); len(got) != 0 {
		t.Errorf("deleted summary still found: %v", got)
	}
}

// streamKeys runs a search with the index unusable (the cache directory a
// file), then removes that file.
func streamKeys(t *testing.T, ta *testApp, args ...string) []string {
	t.Helper()
	cache := filepath.Join(ta.env["XDG_CACHE_HOME"], "tether")
	moved := cache + ".moved"
	if err := os.Rename(cache, moved); err != nil {
		t.Fatal(err)
	}
	put(t, cache, []byte("not a directory"))
	engine, got := searchKeys(t, ta, args...)
	os.Remove(cache)
	if err := os.Rename(moved, cache); err != nil {
		t.Fatal(err)
	}
	if engine != "stream" {
		t.Fatalf("engine %s", engine)
	}
	return got
}

// A search ranks the query while the catalog is listed, over the index
// as it was: when the update after the listing writes (a transcript grew
// a matching prompt), that ranking is not the one answered from.
func TestSearchRanksAgainAfterAnUpdate(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	for range 2 { // the build, then a search that writes nothing
		if _, got := searchKeys(t, ta, "zebra"); len(got) != 0 {
			t.Fatalf("zebra before it was written: %v", got)
		}
	}
	for _, f := range []string{ta.claudeFile(), ta.codexFile()} {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if f == ta.claudeFile() {
			fh.WriteString(`{"type":"user","sessionId":"` + claudeNew + `","timestamp":"2026-11-30T12:00:00Z","message":{"role":"user","content":"a zebra"}}` + "\n")
		} else {
			fh.WriteString(`{"timestamp":"2026-11-30T12:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"a zebra"}}` + "\n")
		}
		fh.Close()
	}
	want := []string{"claude-code:" + claudeNew, "codex:" + codexID}
	if engine, got := searchKeys(t, ta, "zebra"); engine != "index" || !slices.Equal(got, want) {
		t.Errorf("after the append: %s %v, want %v", engine, got, want)
	}
}

// A warm search chooses its results (filters, limit, snippets) from the
// ranking taken during the listing, during the listing itself when no
// filter drops what it looked at, else beside the update's check: its
// output is the one a search that builds the index, and ranks and
// chooses only after that, gives.
func TestWarmSearchAnswersAsAFirstBuild(t *testing.T) {
	ta := newTestApp(t)
	ta.Now = func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }
	withSessions(t, ta, "")
	idx := filepath.Join(ta.env["XDG_CACHE_HOME"], "tether", "search.db")
	out := func(args ...string) string {
		ta.out.Reset()
		ta.run(append([]string{"sessions", "search"}, args...)...)
		return ta.out.String()
	}
	for _, args := range [][]string{
		{"--json", "please"},
		{"--json", "--all-text", "echo"},
		{"--json", "--harness", "codex", "please"},
		{"--json", "--limit", "1", "please"},
		{"--json", "--limit", "1", "--harness", "codex", "please"},
		{"--json", "--limit", "1", "--harness", "claude-code", "please"},
		{"--json", "--limit", "2", "--cwd", "/home/example/src/codex-proj/", "please"},
		{"--json", "--limit", "0", "please"},
		{"--json", "--since", "1h", "please"},
		{"please"},
	} {
		if err := searchindex.Remove(idx); err != nil {
			t.Fatal(err)
		}
		built := out(args...)
		for i := range 2 { // compares every session, then skips
			if warm := out(args...); warm != built {
				t.Errorf("%v: warm search %d\n%s\nafter the build\n%s", args, i+1, warm, built)
			}
		}
	}
}

func TestSessionsSearch(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	if code := ta.run("sessions", "search", "--json", "run", "ECHO"); code != 0 {
		t.Fatalf("exit %d %s", code, ta.err)
	}
	m := validate(t, "search", ta.out.Bytes())
	res := m["results"].([]any)
	if len(res) != 1 || res[0].(map[string]any)["session"].(map[string]any)["id"] != claudeNew {
		t.Errorf("search: %s", ta.out)
	}
	ta.out.Reset()
	ta.run("sessions", "search", "--json", "again")
	if res := validate(t, "search", ta.out.Bytes())["results"].([]any); len(res) != 1 {
		t.Errorf("codex prompt search: %s", ta.out)
	}
	// Assistant text only with --all-text.
	ta.out.Reset()
	ta.run("sessions", "search", "--json", "tool said")
	if res := validate(t, "search", ta.out.Bytes())["results"].([]any); len(res) != 0 {
		t.Errorf("assistant text without --all-text: %s", ta.out)
	}
	ta.out.Reset()
	ta.run("sessions", "search", "--json", "--all-text", "tool said")
	if res := validate(t, "search", ta.out.Bytes())["results"].([]any); len(res) != 3 {
		t.Errorf("--all-text: %s", ta.out)
	}
	if code := ta.run("sessions", "search", "nothing-matches-this"); code != 3 {
		t.Errorf("no match: exit %d", code)
	}
}

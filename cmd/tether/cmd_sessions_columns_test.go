package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// columnsApp is a test app with one Claude Code session and, when config
// is not "", that config file.
func columnsApp(t *testing.T, config string) *testApp {
	t.Helper()
	ta := newTestApp(t)
	proj := filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", "-home-example-src-project")
	copyTestdata(t, filepath.Join(proj, "a.jsonl"), "claude-code-2.1.332", "golden-tool-session.jsonl")
	if config != "" {
		writeConfig(t, ta, config)
	}
	return ta
}

func writeConfig(t *testing.T, ta *testApp, body string) string {
	t.Helper()
	cfg := filepath.Join(ta.Loc.ConfigDir, "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// tableHeader runs tether with args and returns the table's header.
func tableHeader(t *testing.T, ta *testApp, args ...string) []string {
	t.Helper()
	ta.out.Reset()
	ta.err.Reset()
	if code := ta.run(args...); code != 0 {
		t.Fatalf("%q: exit %d\n%s%s", args, code, ta.out, ta.err)
	}
	return strings.Fields(strings.SplitN(ta.out.String(), "\n", 2)[0])
}

var defaultHeader = []string{"HARNESS", "ID", "DIR", "BRANCH", "HUMAN", "ACTIVE", "STATE", "TMUX", "CTX", "MSGS", "TITLE"}

// withBefore is defaultHeader with cols inserted before TITLE.
func withBefore(cols ...string) []string {
	return slices.Insert(slices.Clone(defaultHeader), len(defaultHeader)-1, cols...)
}

// --columns shows those columns in that order (names in any case); +NAME
// adds to the default ones where --cost and --summary put theirs; --cost
// and --summary add to or take out of any list.
func TestSessionsColumns(t *testing.T) {
	ta := columnsApp(t, "")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sessions", "--columns", "Harness,ID,dir,Cost,title"}, []string{"HARNESS", "ID", "DIR", "COST", "TITLE"}},
		{[]string{"sessions", "list", "--columns", "title,msgs,id"}, []string{"TITLE", "MSGS", "ID"}},
		{[]string{"sessions", "--columns", "+cost"}, withBefore("COST")},
		{[]string{"sessions", "list", "--columns", "+cost,+summary"}, withBefore("SUMMARY", "COST")},
		{[]string{"sessions", "--columns", "+summary,+cost"}, withBefore("SUMMARY", "COST")},
		{[]string{"sessions", "--summary", "--cost"}, withBefore("SUMMARY", "COST")},
		{[]string{"sessions", "--columns", "id,title", "--cost"}, []string{"ID", "COST", "TITLE"}},
		{[]string{"sessions", "--columns", "id,cost,title", "--cost=false"}, []string{"ID", "TITLE"}},
		{[]string{"sessions", "--columns", "+summary", "--summary=false"}, defaultHeader},
	} {
		if got := tableHeader(t, ta, c.args...); !slices.Equal(got, c.want) {
			t.Errorf("%q: header %q, want %q", c.args, got, c.want)
		}
	}
	tableHeader(t, ta, "sessions", "--columns", "id,cost")
	if !strings.Contains(ta.out.String(), "$0.00") {
		t.Errorf("COST without its spend:\n%s", ta.out)
	}
}

// A bad --columns is one usage error line: an unknown name lists the
// columns and names the closest; twice the same, a mix of NAME and +NAME,
// and nothing left to show are errors too.
func TestSessionsColumnsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sessions", "--columns", "id,cots"}, []string{`unknown column "cots" — did you mean "cost"?`, "harness, id, dir, branch"}},
		{[]string{"sessions", "list", "--columns", "+sumary"}, []string{`did you mean "summary"?`}},
		{[]string{"sessions", "--columns", "id,ID"}, []string{`--columns: column "id" named twice`}},
		{[]string{"sessions", "--columns", "id,+cost"}, []string{"not both"}},
		{[]string{"sessions", "--columns", ""}, []string{"empty column name"}},
		{[]string{"sessions", "--columns", "cost", "--cost=false"}, []string{"no column left"}},
	} {
		ta := columnsApp(t, "")
		code := ta.run(c.args...)
		msg := ta.err.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || ta.out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, ta.out, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: stderr %q, want %q", c.args, msg, w)
			}
		}
	}
	ta := columnsApp(t, "")
	if code := ta.run("sessions", "--columns", "xyzzy"); code != 2 || strings.Contains(ta.err.String(), "did you mean") {
		t.Errorf("nothing close: exit %d, %q", code, ta.err)
	}
}

// [catalog] columns sets the default (names or +NAME), cost = true adds
// COST to it; --cost=false takes COST out, --columns replaces both.
func TestSessionsColumnsFromConfig(t *testing.T) {
	for _, c := range []struct {
		config string
		args   []string
		want   []string
	}{
		{"[catalog]\ncolumns = [\"ID\", \"cost\", \"title\"]\n", nil, []string{"ID", "COST", "TITLE"}},
		{"[catalog]\ncolumns = [\"+cost\"]\n", nil, withBefore("COST")},
		{"[catalog]\ncolumns = [\"+cost\"]\n", []string{"--cost=false"}, defaultHeader},
		{"[catalog]\ncolumns = [\"+cost\"]\n", []string{"--summary"}, withBefore("SUMMARY", "COST")},
		{"[catalog]\ncolumns = [\"id\", \"title\"]\ncost = true\n", nil, []string{"ID", "COST", "TITLE"}},
		{"[catalog]\ncolumns = [\"id\", \"title\"]\ncost = true\n", []string{"--cost=false"}, []string{"ID", "TITLE"}},
		{"[catalog]\ncolumns = [\"id\", \"title\"]\ncost = true\n", []string{"--columns", "harness,title"}, []string{"HARNESS", "TITLE"}},
		{"[catalog]\ncost = true\n", []string{"--columns", "+summary"}, withBefore("SUMMARY")},
	} {
		ta := columnsApp(t, c.config)
		if got := tableHeader(t, ta, append([]string{"sessions"}, c.args...)...); !slices.Equal(got, c.want) {
			t.Errorf("%q %q: header %q, want %q", c.config, c.args, got, c.want)
		}
	}
	// A bad list is the config's error, naming the file, on one line.
	ta := columnsApp(t, "")
	cfg := writeConfig(t, ta, "[catalog]\ncolumns = [\"id\", \"cots\"]\n")
	code := ta.run("sessions")
	msg := ta.err.String()
	if code != 1 || !strings.Contains(msg, cfg) || !strings.Contains(msg, `catalog.columns: unknown column "cots" — did you mean "cost"?`) || strings.Count(msg, "\n") != 1 {
		t.Errorf("bad config: exit %d, stderr %q", code, msg)
	}
}

// --json has every field whatever the columns; spend, which reads the
// transcripts, only when COST is among them.
func TestSessionsColumnsJSON(t *testing.T) {
	for _, c := range []struct {
		config    string
		args      []string
		wantSpend bool
	}{
		{"", nil, false},
		{"", []string{"--columns", "id"}, false},
		{"", []string{"--columns", "id,cost"}, true},
		{"[catalog]\ncolumns = [\"+cost\"]\n", nil, true},
		{"[catalog]\ncost = true\n", []string{"--columns", "id,title"}, false},
	} {
		ta := columnsApp(t, c.config)
		if code := ta.run(append([]string{"sessions", "--json"}, c.args...)...); code != 0 {
			t.Fatalf("%q %q: exit %d %s", c.config, c.args, code, ta.err)
		}
		s := validate(t, "list", ta.out.Bytes())["sessions"].([]any)[0].(map[string]any)
		_, spend := s["spend"]
		if spend != c.wantSpend || s["harness"] == nil || s["title"] == nil || s["cwd"] == nil {
			t.Errorf("%q %q: spend %v (want %v), session %v", c.config, c.args, spend, c.wantSpend, s)
		}
	}
}

// On a narrow terminal (COLUMNS) the chosen columns still give up
// dropOrder's first, and the title keeps its place and its width, first
// or last.
func TestSessionsColumnsNarrowTerminal(t *testing.T) {
	ta := columnsApp(t, "")
	ta.IO.StdoutTTY = true
	ta.env["COLUMNS"] = "60"
	if got, want := tableHeader(t, ta, "sessions", "--columns", "+cost,+summary"), []string{"ID", "DIR", "ACTIVE", "STATE", "SUMMARY", "COST", "TITLE"}; !slices.Equal(got, want) {
		t.Errorf("+cost,+summary at 60: %q, want %q\n%s", got, want, ta.out)
	}
	ta.env["COLUMNS"] = "40"
	if got, want := tableHeader(t, ta, "sessions", "--columns", "title,id,dir,branch,tmux,cost"), []string{"TITLE", "ID", "DIR", "BRANCH", "COST"}; !slices.Equal(got, want) {
		t.Errorf("title first at 40: %q, want %q\n%s", got, want, ta.out)
	}
	if !strings.Contains(ta.out.String(), "second turn  a ") || !strings.Contains(ta.out.String(), "$0.00") {
		t.Errorf("title or cost cut:\n%s", ta.out)
	}
}

package summarize

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/input-*.txt")

// goldenEvidence gathers the evidence of a golden transcript the e2e
// suite recorded from a real CLI, through the catalog and agent readers.
func goldenEvidence(t *testing.T, name string) Evidence {
	t.Helper()
	data, err := os.ReadFile(testutil.Testdata(t, name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var c *catalog.Catalog
	var path string
	if strings.HasPrefix(name, "codex") {
		path = filepath.Join(dir, "sessions", "2026", "01", "01", "rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000001.jsonl")
		c = &catalog.Catalog{Readers: []catalog.Reader{&codexsessions.Reader{Dir: dir}}}
	} else {
		path = filepath.Join(dir, "projects", "-home-example-src-project", "s1.jsonl")
		c = &catalog.Catalog{Readers: []catalog.Reader{&claudesessions.Reader{Dir: dir}}}
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ss, _, err := c.List(context.Background(), catalog.ListOptions{All: true})
	if err != nil || len(ss) != 1 {
		t.Fatalf("list %s: %v %+v", name, err, ss)
	}
	ev, err := Gather(context.Background(), c, agent.Registry{claude.New(dir), codex.New(dir)}, ss[0], t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// The source path is a temp dir: keep the evidence comparable.
	ev.Session.Source = ""
	return ev
}

func TestBuildGolden(t *testing.T) {
	for _, name := range []string{"claude-code-2.0.77/golden-tool-session.jsonl", "claude-code-2.1.332/golden-tool-session.jsonl", "codex-0.171.0/golden-rollout-exec-resume.jsonl"} {
		t.Run(name, func(t *testing.T) {
			a := Build(goldenEvidence(t, name), DefaultBudget)
			b := Build(goldenEvidence(t, name), DefaultBudget)
			if a.Text != b.Text {
				t.Fatalf("not deterministic:\n%s\n---\n%s", a.Text, b.Text)
			}
			if len(a.Cut) != 0 || a.Tokens > DefaultBudget {
				t.Errorf("small session cut: %+v", a)
			}
			golden := filepath.Join("testdata", "input-"+strings.ReplaceAll(strings.TrimSuffix(name, ".jsonl"), "/", "-")+".txt")
			if *update {
				os.WriteFile(golden, []byte(a.Text), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./summarize -update writes it)", err)
			}
			if a.Text != string(want) {
				t.Errorf("input differs from %s:\n%s", golden, a.Text)
			}
		})
	}
}

// bigEvidence is a session far over any budget.
func bigEvidence() Evidence {
	long := func(tag string, n int) string { return tag + " " + strings.Repeat("word ", n) }
	var files []string
	for i := range 60 {
		files = append(files, fmt.Sprintf("/home/example/src/project/pkg%02d/%s.go", i, strings.Repeat("f", 60)))
	}
	var prompts []string
	for i := range 5 {
		prompts = append(prompts, long(fmt.Sprintf("PROMPT%d", i), 600))
	}
	var tools []agent.Activity
	for i := range 20 {
		tools = append(tools, agent.Activity{Tool: "Edit", Paths: []string{files[i]}})
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return Evidence{
		Session: catalog.Session{Harness: catalog.ClaudeCode, ID: "s", Cwd: "/home/example/src/project", LastActivity: t0,
			FirstPrompt: long("FIRST", 600), RecentPrompts: prompts,
			Evidence: &catalog.Evidence{FilesRead: files, FilesModified: files, Repos: []catalog.Repo{{Root: "/home/example/src/project", ID: "github.com/example/project"}}}},
		Recent:   agent.Recent{Tools: tools, LastAssistant: long("ASSISTANT", 1500)},
		Previous: &catalog.Summary{Title: "earlier", Objective: long("OBJ", 300)},
	}
}

func TestBuildBudget(t *testing.T) {
	whole := Build(bigEvidence(), 1<<30)
	if len(whole.Cut) != 0 || whole.Tokens < 6000 {
		t.Fatalf("uncut input: %d tokens, cuts %v", whole.Tokens, whole.Cut)
	}
	for _, budget := range []int{MinBudget, 500, 1000, 2000, 4000, 6000} {
		in := Build(bigEvidence(), budget)
		if in.Tokens > budget || estimate(in.Text) > budget {
			t.Errorf("budget %d: input is %d tokens", budget, in.Tokens)
		}
		if len(in.Cut) == 0 || !strings.Contains(in.Text, "## cut to fit the input budget") {
			t.Errorf("budget %d: no note of what was cut: %v", budget, in.Cut)
		}
		if again := Build(bigEvidence(), budget); again.Text != in.Text {
			t.Errorf("budget %d: not deterministic", budget)
		}
		if budget >= 2000 && !strings.Contains(in.Text, "PROMPT4") {
			t.Errorf("budget %d: the latest prompt was dropped:\n%s", budget, in.Text)
		}
	}
	// The least telling parts go first.
	in := Build(bigEvidence(), 4000)
	if strings.Contains(in.Text, "## files read") && !strings.Contains(in.Text, "## files modified") {
		t.Errorf("files modified cut before files read:\n%s", in.Text)
	}
}

func TestBuildCleansControlCharacters(t *testing.T) {
	ev := bigEvidence()
	ev.Session.FirstPrompt = "fix \x1b[31mred\x1b[0m \u202eevil"
	in := Build(ev, DefaultBudget)
	if strings.ContainsAny(in.Text, "\x1b\u202e") {
		t.Errorf("control characters in input")
	}
}

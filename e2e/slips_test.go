//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/trim"
)

// TestTrimSymlinkedTranscriptResumes: a real Claude Code session whose
// transcript is linked into projects/ from elsewhere (a dotfiles setup) is
// listed, trimmed by id through the link (the link stays, the backup sits
// by the target) and resumed by the real CLI through it (issue 23: 'tether
// trim ID' said no such session).
func TestTrimSymlinkedTranscriptResumes(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	ctx := context.Background()
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("dotfiles-linked")
	allow := []string{"--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"}
	claude := func(want string, args ...string) string {
		t.Helper()
		return requireClaudeOK(t, env.Claude(ctx, clis.Claude, dir, append(args, allow...)...), want)
	}
	api.Enqueue(fakeapi.Bash("seq 1 6000").Then(fakeapi.Text("Counted one.")))
	sid := claude("Counted one.", "-p", "PROMPTONE count")
	api.Enqueue(fakeapi.Text("Second answer."))
	claude("Second answer.", "-p", "--resume", sid, "PROMPTTWO summarise")

	ts := env.ClaudeTranscripts()
	if len(ts) != 1 {
		t.Fatalf("transcripts %v", ts)
	}
	link := ts[0]
	target := filepath.Join(env.Home, "dotfiles", "claude", sid+".jsonl")
	os.MkdirAll(filepath.Dir(target), 0o700)
	if err := os.Rename(link, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	l := listJSON(t, env)
	if len(l.Sessions) != 1 || l.Sessions[0].ID != sid {
		t.Fatalf("listed %+v, want the linked %s", l.Sessions, sid)
	}
	r := env.Run(ctx, "tether trim --fit", tether, dir, "trim", "--fit", "1000000", "--json", "--dry-run", sid[:8])
	var rep trim.Report
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil {
		t.Fatalf("dry run: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r = env.Run(ctx, "tether trim --fit", tether, dir, "trim", "--fit", itoa(rep.TokensBefore/3), "--json", sid[:8])
	if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil || !rep.Changed {
		t.Fatalf("trim: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by the trim: %v", err)
	}
	if _, err := os.Stat(target + ".bak"); err != nil {
		t.Errorf("no backup next to the target: %v", err)
	}
	validateFile(t, target)

	api.Reset()
	api.Enqueue(fakeapi.Text("Continued."))
	claude("Continued.", "-p", "--resume", sid, "PROMPTTHREE continue")
	req, _ := api.LastModelRequest()
	if users := strings.Join(req.UserTexts(), "\n"); !strings.Contains(users, "PROMPTTWO") {
		t.Errorf("the resume did not send the trimmed history: %q", users)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by the resume: %v", err)
	}
	if data, _ := os.ReadFile(target); !strings.Contains(string(data), "PROMPTTHREE") {
		t.Error("the resume did not append to the link's target")
	}
}

// TestCodexCtxColumn: a real Codex 0.171.0 session's few tokens (~130 of
// a 258,400-token window) read 0.1% in the CTX column, never 0% (issue 23).
func TestCodexCtxColumn(t *testing.T) {
	clis := harness.CLIs(t)
	api := startAPI(t)
	env := harness.NewEnv(t, api)
	dir := env.ProjectDir("codex-ctx")
	// A first turn's small context: 0.05% of the window.
	api.SetDefaultUsage(fakeapi.Usage{InputTokens: 120, OutputTokens: 10})
	res := env.Codex(context.Background(), clis.Codex, dir, "exec", "--skip-git-repo-check", "hello there")
	if res.ExitCode != 0 {
		t.Fatalf("codex exec: exit %d: %s", res.ExitCode, res.Stderr)
	}
	l := listJSON(t, env, "--harness", "codex")
	if len(l.Sessions) != 1 || l.Sessions[0].Context == nil || l.Sessions[0].Context.Tokens == 0 {
		t.Fatalf("listed %+v, want one Codex session with a token count", l.Sessions)
	}
	code, out, errOut := tether(t, env, "sessions", "--harness", "codex")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("table: exit %d\n%s%s", code, out, errOut)
	}
	col := strings.Index(lines[0], "CTX")
	if cell := strings.Fields(lines[1][col:])[0]; cell != "0.1%" {
		t.Errorf("CTX %q for %d tokens:\n%s", cell, l.Sessions[0].Context.Tokens, out)
	}
}

// TestRunHelpIsTethersBeforeTheProgram: 'tether run --help' is run's own
// help (issue 23: exit 2, "see 'tether run --help'"), and after the
// program name --help still reaches the real Claude Code.
func TestRunHelpIsTethersBeforeTheProgram(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	ctx := context.Background()
	env := harness.NewEnv(t, startAPI(t))
	env.Setenv("TETHER_CLAUDE_BIN", clis.Claude)
	dir := env.ProjectDir("help")
	r := env.Run(ctx, "tether run --help", tether, dir, "run", "--help")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "tether run - run the real claude, codex or opencode") || r.Stderr != "" {
		t.Errorf("tether run --help: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r = env.Run(ctx, "tether run claude --help", tether, dir, "run", "claude", "--help")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "Usage: claude") || strings.Contains(r.Stdout, "tether run - ") {
		t.Errorf("tether run claude --help: exit %d, want Claude's help\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
}

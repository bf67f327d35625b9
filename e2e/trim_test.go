//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
	"github.com/tether-dev/tether/trim"
)

// assistantTexts is every assistant text of a request's history.
func assistantTexts(r fakeapi.Request) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			parts = append(parts, m.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func validateFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := trim.Validate(f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkPairs asserts every tool_use sent has its result and vice versa, and
// that Claude did not have to paper over a broken pair.
func checkPairs(t *testing.T, r fakeapi.Request) {
	t.Helper()
	uses := map[string]bool{}
	for _, u := range r.AllToolUses() {
		uses[u.ID] = true
	}
	for _, res := range r.AllToolResults() {
		if !uses[res.ID] {
			t.Errorf("tool_result %s sent without its tool_use", res.ID)
		}
		delete(uses, res.ID)
		if strings.Contains(res.Content, "interrupted") || res.Content == "(no content)" {
			t.Errorf("Claude synthesized a result for %s: %q", res.ID, res.Content)
		}
	}
	for id := range uses {
		t.Errorf("tool_use %s sent without its tool_result", id)
	}
}

// TestTrimKeepResumes builds a real session with tool calls over three
// turns (and a fork of it) with each Claude Code version, trims both with
// `tether trim --keep docs`, resumes them with the real CLI and checks in
// the fake API's recorded request that exactly the kept history was sent.
func TestTrimKeepResumes(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeVersion, clis.Claude},
		{harness.ClaudeOldVersion, clis.ClaudeOld},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			dir := env.ProjectDir("trim")
			notes := filepath.Join(dir, "docs", "notes.md")
			mainGo := filepath.Join(dir, "main.go")
			os.MkdirAll(filepath.Dir(notes), 0o755)
			os.WriteFile(notes, []byte("the secret word is pineapple\n"), 0o644)
			os.WriteFile(mainGo, []byte("package main // MAINFILE\n"), 0o644)
			allow := []string{"--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose"}
			claude := func(want string, args ...string) string {
				t.Helper()
				return requireClaudeOK(t, env.Claude(ctx, c.bin, dir, append(args, allow...)...), want)
			}

			api.Enqueue(fakeapi.Read(notes).Then(fakeapi.Text("Noted.")))
			sid := claude("Noted.", "-p", "FIRST read the notes")
			api.Enqueue(fakeapi.Bash("echo BUILDOUTPUT").Then(fakeapi.Text("Built.")))
			claude("Built.", "-p", "--resume", sid, "SECOND run the build")
			api.Enqueue(fakeapi.Read(mainGo).Then(fakeapi.Text("LASTANSWER main read.")))
			claude("LASTANSWER main read.", "-p", "--resume", sid, "THIRD read main")
			api.Enqueue(fakeapi.Text("Forked."))
			fork := claude("Forked.", "-p", "--resume", sid, "--fork-session", "FORK prompt")
			if fork == sid {
				t.Fatal("--fork-session kept the id")
			}

			transcript := ""
			for _, p := range env.ClaudeTranscripts() {
				if strings.HasSuffix(p, sid+".jsonl") {
					transcript = p
				}
			}
			if transcript == "" {
				t.Fatalf("no transcript for %s in %v", sid, env.ClaudeTranscripts())
			}
			validateFile(t, transcript) // the validator accepts what the real CLI wrote
			orig, _ := os.ReadFile(transcript)

			r := env.Run(ctx, "tether trim --keep docs", tether, dir, "trim", "--keep", "docs", sid[:8])
			if r.ExitCode != 0 {
				t.Fatalf("tether trim: exit %d: %s", r.ExitCode, r.Stderr)
			}
			if bak, _ := os.ReadFile(transcript + ".bak"); string(bak) != string(orig) {
				t.Fatal("backup is not the original transcript")
			}
			validateFile(t, transcript)
			r = env.Run(ctx, "tether trim fork", tether, dir, "trim", "--keep", "docs/notes.md", "--json", fork)
			var rep trim.Report
			if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil || !rep.Changed {
				t.Fatalf("tether trim fork: exit %d: %s %s", r.ExitCode, r.Stdout, r.Stderr)
			}

			for _, s := range []struct{ id, lastAnswer string }{{sid, "LASTANSWER"}, {fork, "Forked."}} {
				api.Reset()
				api.Enqueue(fakeapi.Text("Continued."))
				claude("Continued.", "-p", "--resume", s.id, "continue")
				req, ok := api.LastModelRequest()
				if !ok {
					t.Fatal("no model request recorded")
				}
				users := strings.Join(req.UserTexts(), "\n")
				if !strings.Contains(users, "FIRST read the notes") || !strings.Contains(users, "continue") {
					t.Errorf("%s: first prompt or new prompt not sent: %q", s.id, users)
				}
				for _, gone := range []string{"SECOND", "THIRD", "FORK prompt"} {
					if strings.Contains(users, gone) {
						t.Errorf("%s: dropped prompt %q was sent", s.id, gone)
					}
				}
				uses := req.AllToolUses()
				if len(uses) != 1 || uses[0].Name != "Read" || !strings.Contains(string(uses[0].Input), "notes.md") {
					t.Errorf("%s: tool uses sent %+v, want only the Read of docs/notes.md", s.id, uses)
				}
				results := req.AllToolResults()
				if len(results) != 1 || !strings.Contains(results[0].Content, "pineapple") {
					t.Errorf("%s: tool results sent %+v", s.id, results)
				}
				checkPairs(t, req)
				texts := assistantTexts(req)
				if !strings.Contains(texts, s.lastAnswer) || strings.Contains(texts, "Built.") || strings.Contains(texts, "BUILDOUTPUT") {
					t.Errorf("%s: assistant history sent: %q", s.id, texts)
				}
			}
			// Claude appended to the trimmed file; it is still a valid transcript.
			validateFile(t, transcript)

			// Restore brings the original back (the resumed turn is kept aside).
			r = env.Run(ctx, "tether trim --restore", tether, dir, "trim", "--restore", sid)
			if got, _ := os.ReadFile(transcript); r.ExitCode != 0 || string(got) != string(orig) {
				t.Fatalf("restore: exit %d %s", r.ExitCode, r.Stderr)
			}
		})
	}
}

// TestTrimFitResumes makes a session whose tool output dominates, trims it
// with --fit, and checks that the resumed request is smaller, keeps every
// tool pair intact and still carries the last turn.
func TestTrimFitResumes(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeVersion, clis.Claude},
		{harness.ClaudeOldVersion, clis.ClaudeOld},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			dir := env.ProjectDir("fit")
			allow := []string{"--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose"}
			claude := func(want string, args ...string) string {
				t.Helper()
				return requireClaudeOK(t, env.Claude(ctx, c.bin, dir, append(args, allow...)...), want)
			}
			api.Enqueue(fakeapi.Bash("seq 1 6000").Then(fakeapi.Text("Counted one.")))
			sid := claude("Counted one.", "-p", "PROMPTONE count")
			api.Enqueue(fakeapi.Bash("seq 1 6000").Then(fakeapi.Text("Counted two.")))
			claude("Counted two.", "-p", "--resume", sid, "PROMPTTWO count again")
			api.Enqueue(fakeapi.Text("Third answer."))
			claude("Third answer.", "-p", "--resume", sid, "PROMPTTHREE summarise")
			before, _ := api.LastModelRequest()

			r := env.Run(ctx, "tether trim --dry-run", tether, dir, "trim", "--fit", "1000000", "--json", "--dry-run", sid)
			var rep trim.Report
			if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil {
				t.Fatalf("dry run: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
			}
			target := rep.TokensBefore / 3
			r = env.Run(ctx, "tether trim --fit", tether, dir, "trim", "--fit", itoa(target), "--json", sid)
			if r.ExitCode != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil || !rep.Changed || rep.TokensAfter > target {
				t.Fatalf("fit: exit %d %s %s", r.ExitCode, r.Stdout, r.Stderr)
			}

			api.Reset()
			api.Enqueue(fakeapi.Text("Continued."))
			claude("Continued.", "-p", "--resume", sid, "continue")
			after, _ := api.LastModelRequest()
			if len(after.Body) >= len(before.Body) {
				t.Errorf("request after the trim is %d bytes, before %d", len(after.Body), len(before.Body))
			}
			users := strings.Join(after.UserTexts(), "\n")
			if !strings.Contains(users, "PROMPTTHREE") || !strings.Contains(users, "continue") {
				t.Errorf("last turn not sent: %q", users)
			}
			checkPairs(t, after)
			markers := 0
			for _, res := range after.AllToolResults() {
				if strings.HasPrefix(res.Content, "[trimmed by tether: ") {
					markers++
				}
			}
			if markers == 0 && strings.Contains(users, "PROMPTONE") {
				t.Errorf("neither a marker nor a dropped turn in the request: %q", users)
			}
		})
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestTrimCompacted compacts a real session with /compact, trims it and
// resumes it: the compaction structure written by the CLI survives.
func TestTrimCompacted(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeVersion, clis.Claude},
		{harness.ClaudeOldVersion, clis.ClaudeOld},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			dir := env.ProjectDir("compact")
			allow := []string{"--allowedTools", "Bash", "Read", "--output-format", "stream-json", "--verbose"}
			run := func(args ...string) harness.Result {
				return env.Claude(ctx, c.bin, dir, append(args, allow...)...)
			}
			api.Enqueue(fakeapi.Bash("echo PRECOMPACT").Then(fakeapi.Text("Ran it.")))
			sid := requireClaudeOK(t, run("-p", "OLDPROMPT run it"), "Ran it.")
			api.Enqueue(fakeapi.Text("<summary>SUMMARYTEXT of the session</summary>"))
			if r := run("-p", "--resume", sid, "/compact"); r.ExitCode != 0 {
				t.Fatalf("/compact: exit %d %s", r.ExitCode, r.Stderr)
			}
			api.Enqueue(fakeapi.Bash("echo POSTCOMPACT").Then(fakeapi.Text("After.")))
			requireClaudeOK(t, run("-p", "--resume", sid, "NEWPROMPT run again"), "After.")

			var transcript string
			for _, p := range env.ClaudeTranscripts() {
				if strings.HasSuffix(p, sid+".jsonl") {
					transcript = p
				}
			}
			data, _ := os.ReadFile(transcript)
			if !strings.Contains(string(data), `"compact_boundary"`) {
				t.Skipf("%s wrote no compact_boundary for /compact in -p mode", c.version)
			}
			validateFile(t, transcript)
			r := env.Run(ctx, "tether trim", tether, dir, "trim", "--keep", "docs", "--json", sid)
			if r.ExitCode != 0 {
				t.Fatalf("trim: exit %d %s", r.ExitCode, r.Stderr)
			}
			validateFile(t, transcript)
			api.Reset()
			api.Enqueue(fakeapi.Text("Continued."))
			requireClaudeOK(t, run("-p", "--resume", sid, "continue"), "Continued.")
			req, _ := api.LastModelRequest()
			users := strings.Join(req.UserTexts(), "\n")
			if !strings.Contains(users, "SUMMARYTEXT") || !strings.Contains(users, "continue") {
				t.Errorf("summary or new prompt not sent: %q", users)
			}
			if strings.Contains(users, "OLDPROMPT") || len(req.AllToolUses()) != 0 {
				t.Errorf("pre-compaction prompt or dropped tool calls sent: %q %+v", users, req.AllToolUses())
			}
			checkPairs(t, req)
		})
	}
}

// TestTrimWithSubagent delegates to a subagent (Agent in 2.1.332, Task in
// 2.0.77), trims the session with the keep policy and resumes it: the
// delegation pair goes, the subagent's own transcript is not touched.
func TestTrimWithSubagent(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeVersion, clis.Claude},
		{harness.ClaudeOldVersion, clis.ClaudeOld},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			dir := env.ProjectDir("sub")
			api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
				users := strings.Join(req.UserTexts(), "\n")
				switch {
				case strings.Contains(users, "SUBTASK-PROMPT"):
					return fakeapi.Text("SUBAGENT DONE"), true
				case req.EndsWithToolResult(), strings.Contains(req.LastUserText(), "background-task"):
					// 2.1.332 runs the agent in the background and reports
					// its end in a later notification turn.
					return fakeapi.Text("Delegated."), true
				case strings.Contains(req.LastUserText(), "DELEGATE"):
					name := "Task"
					if req.HasTool("Agent") {
						name = "Agent"
					}
					return fakeapi.CallTool(name, map[string]any{"description": "sub task", "prompt": "SUBTASK-PROMPT list files", "subagent_type": "general-purpose"}), true
				case strings.Contains(req.LastUserText(), "continue"):
					return fakeapi.Text("Continued."), true
				}
				return fakeapi.Reply{}, false
			})
			allow := []string{"--allowedTools", "Bash", "Read", "Task", "Agent", "--output-format", "stream-json", "--verbose"}
			run := func(args ...string) harness.Result {
				return env.Claude(ctx, c.bin, dir, append(args, allow...)...)
			}
			sid := requireClaudeOK(t, run("-p", "FIRST DELEGATE please"), "Delegated.")
			var transcript string
			others := map[string]string{}
			filepath.WalkDir(env.ClaudeConfigDir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
					if strings.HasSuffix(p, sid+".jsonl") {
						transcript = p
					} else {
						b, _ := os.ReadFile(p)
						others[p] = string(b)
					}
				}
				return nil
			})
			data, _ := os.ReadFile(transcript)
			if !strings.Contains(string(data), "SUBTASK-PROMPT") {
				t.Skipf("%s did not delegate (no subagent call in the transcript)", c.version)
			}
			validateFile(t, transcript)
			r := env.Run(ctx, "tether trim", tether, dir, "trim", "--keep", "docs", sid)
			if r.ExitCode != 0 {
				t.Fatalf("trim: exit %d %s", r.ExitCode, r.Stderr)
			}
			for p, before := range others {
				if after, _ := os.ReadFile(p); string(after) != before && !strings.HasSuffix(p, "history.jsonl") {
					t.Errorf("trim touched %s", p)
				}
			}
			requireClaudeOK(t, run("-p", "--resume", sid, "continue"), "Continued.")
			req, _ := api.LastModelRequest()
			if uses := req.AllToolUses(); len(uses) != 0 {
				t.Errorf("dropped delegation sent: %+v", uses)
			}
			users := strings.Join(req.UserTexts(), "\n")
			if !strings.Contains(users, "FIRST DELEGATE") || strings.Contains(users, "SUBTASK-PROMPT") {
				t.Errorf("history sent: %q", users)
			}
			if !strings.Contains(assistantTexts(req), "Delegated.") {
				t.Errorf("last answer not sent: %q", assistantTexts(req))
			}
			checkPairs(t, req)
		})
	}
}

// TestTrimRefusesRunningSession (issue 13.1): while a real Claude Code
// runs a session (here a Bash tool call sleeping), `tether trim` refuses
// it with exit 4 and leaves it alone, though 2.0.x writes no
// sessions/<pid>.json; once the CLI has exited the same trim succeeds.
func TestTrimRefusesRunningSession(t *testing.T) {
	clis := harness.CLIs(t)
	tether := harness.Tether(t)
	for _, c := range []struct{ version, bin string }{
		{harness.ClaudeOldVersion, clis.ClaudeOld},
		{harness.ClaudeVersion, clis.Claude},
	} {
		t.Run(c.version, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			api := startAPI(t)
			env := harness.NewEnv(t, api)
			dir := env.ProjectDir("live")
			allow := []string{"--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"}
			api.Enqueue(fakeapi.Text("First."))
			sid := requireClaudeOK(t, env.Claude(ctx, c.bin, dir, append([]string{"-p", "FIRST hello"}, allow...)...), "First.")

			api.Enqueue(fakeapi.Bash("sleep 8").Then(fakeapi.Text("Slept.")))
			done := make(chan harness.Result, 1)
			go func() {
				done <- env.Claude(ctx, c.bin, dir, append([]string{"-p", "--resume", sid, "SLEEP now"}, allow...)...)
			}()
			transcript := ""
			deadline := time.Now().Add(60 * time.Second)
			for transcript == "" && time.Now().Before(deadline) {
				for _, p := range env.ClaudeTranscripts() {
					if b, _ := os.ReadFile(p); strings.HasSuffix(p, sid+".jsonl") && strings.Contains(string(b), "sleep 8") {
						transcript = p
					}
				}
				time.Sleep(100 * time.Millisecond)
			}
			if transcript == "" {
				t.Fatal("the resumed CLI never wrote its Bash tool call")
			}
			r := env.Run(ctx, "tether trim (running)", tether, dir, "trim", "--keep", "/x", sid)
			if r.ExitCode != 4 || !strings.Contains(r.Stderr, "running") {
				t.Errorf("trim of a running session: exit %d, stderr %q", r.ExitCode, r.Stderr)
			}
			if _, err := os.Stat(transcript + ".bak"); err == nil {
				t.Error("the running session was trimmed (a backup exists)")
			}
			requireClaudeOK(t, <-done, "Slept.")
			validateFile(t, transcript)

			r = env.Run(ctx, "tether trim (ended)", tether, dir, "trim", "--keep", "/x", sid)
			if r.ExitCode != 0 {
				t.Errorf("trim after the CLI exited: exit %d, stderr %q", r.ExitCode, r.Stderr)
			}
		})
	}
}

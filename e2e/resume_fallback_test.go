//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// oneJSONDocument decodes stdout as exactly one JSON document.
func oneJSONDocument(t *testing.T, r harness.Result) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: stdout is not JSON: %v\n%s", r.Name, err, r.Stdout)
	}
	var more any
	if err := dec.Decode(&more); err == nil {
		t.Fatalf("%s: stdout holds more than one JSON document:\n%s", r.Name, r.Stdout)
	}
	return doc
}

// bigReadSession has Claude read three ~190 KB files, reporting 50% of a
// 100k window: under the 90% threshold, so the preflight leaves it alone,
// but far over what the (fake) API accepts.
func bigReadSession(t *testing.T, ctx context.Context, env *harness.Env, api *fakeapi.Server, tether, proj string) string {
	t.Helper()
	cfg := filepath.Join(envVar(env, "XDG_CONFIG_HOME"), "tether", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("[hooks.windows]\n\"claude-opus-5-5\" = 100000\n"), 0o600)
	var files []string
	for i := 0; i < 3; i++ {
		p := filepath.Join(proj, fmt.Sprintf("big%d.txt", i))
		os.WriteFile(p, []byte(strings.Repeat(strings.Repeat("y", 125)+"\n", 1500)), 0o644)
		files = append(files, p)
	}
	api.Enqueue(fakeapi.Read(files[0]).Then(fakeapi.Read(files[1]).Then(fakeapi.Read(files[2]).Then(
		fakeapi.Text("read them").WithUsage(fakeapi.Usage{InputTokens: 50000, OutputTokens: 10})))))
	r := env.Run(ctx, "claude reads big files", tether, proj, "run", "claude", "-p", "read the files",
		"--output-format", "stream-json", "--verbose", "--allowedTools", "Read")
	if r.ExitCode != 0 {
		t.Fatalf("exit %d", r.ExitCode)
	}
	return sessionOf(t, r)
}

// TestWrapPromptTooLongTrimsThenResumes: the API refuses the resume as too
// long although the estimate was under the threshold; tether trims the
// session (backup kept) and resumes it once more, and with
// --output-format json stdout carries only the attempt that counted.
func TestWrapPromptTooLongTrimsThenResumes(t *testing.T) {
	clis := harness.CLIs(t)
	ctx := context.Background()
	env, api, tether := wrapEnv(t, clis.Claude)
	base, _ := filepath.EvalSymlinks(env.Home)
	proj := filepath.Join(base, "src", "project")
	os.MkdirAll(proj, 0o755)
	sid := bigReadSession(t, ctx, env, api, tether, proj)

	// The fake API's limit: any request carrying the untrimmed history.
	api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
		if len(req.UserTexts()) > 1 && !strings.Contains(string(req.Body), "[trimmed by tether:") {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Reply{}, false
	})
	r := env.Run(ctx, "resume too long → trim → resume", tether, proj, "run", "claude", "-p", "--resume", sid, "go on", "--output-format", "json")
	if r.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", r.ExitCode, r.Stderr)
	}
	doc := oneJSONDocument(t, r)
	if doc["session_id"] != sid || doc["is_error"] == true {
		t.Errorf("the document is not the trimmed resume's: %v", doc)
	}
	if !strings.Contains(r.Stderr, "prompt too long — trimmed to about") || !strings.Contains(r.Stderr, "resuming once more") ||
		strings.Contains(r.Stderr, "could not be resumed") {
		t.Errorf("stderr:\n%s", r.Stderr)
	}
	if last, ok := api.LastModelRequest(); !ok || !strings.Contains(string(last.Body), "[trimmed by tether:") {
		t.Errorf("the last request was not the trimmed history")
	}
	name := filepath.Base(filepath.Dir(findTranscript(t, env, sid)))
	if _, err := os.Stat(filepath.Join(env.ClaudeConfigDir, "projects", name, sid+".jsonl.bak")); err != nil {
		t.Errorf("no backup: %v", err)
	}
	var seq []string
	for _, rec := range events(t, env) {
		if rec.SessionID == sid {
			seq = append(seq, rec.Event)
		}
	}
	if got := strings.Join(seq, ","); !strings.Contains(got, "resume_failure,trim,resume_retry") || !strings.Contains(got, "output_withheld") {
		t.Errorf("logged sequence %s", got)
	}

	// Nothing left to trim and still too long: one fresh start, and
	// stdout still holds one document, the fresh session's.
	api.SetResponder(func(req fakeapi.Request) (fakeapi.Reply, bool) {
		if len(req.UserTexts()) > 1 {
			return fakeapi.PromptTooLong(250000, 200000), true
		}
		return fakeapi.Reply{}, false
	})
	r = env.Run(ctx, "resume too long → fresh (json)", tether, proj, "run", "claude", "-p", "--resume", sid, "again", "--output-format", "json")
	if r.ExitCode != 0 {
		t.Fatalf("fallback: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	doc = oneJSONDocument(t, r)
	if doc["session_id"] == sid || doc["session_id"] == nil || doc["is_error"] == true {
		t.Errorf("the document is not the fresh session's: %v", doc)
	}
	if strings.Count(r.Stderr, "could not be resumed") != 1 || strings.Contains(r.Stderr, "CLAUDE.md") ||
		!strings.Contains(r.Stderr, "The old session is kept in ") {
		t.Errorf("fallback notice:\n%s", r.Stderr)
	}

	// (The failed resume is remembered as stale until the transcript
	// changes; touch it so the next run tries again.)
	tp := findTranscript(t, env, sid)
	later := time.Now().Add(time.Minute)
	os.Chtimes(tp, later, later)

	// stream-json streams every attempt: a consumer tells them apart by
	// the system/init events; the last attempt is the one that counts.
	r = env.Run(ctx, "resume too long → fresh (stream-json)", tether, proj, "run", "claude", "-p", "--resume", sid, "more",
		"--output-format", "stream-json", "--verbose")
	if r.ExitCode != 0 {
		t.Fatalf("stream-json: exit %d\n%s", r.ExitCode, r.Stderr)
	}
	var inits []string
	var results []map[string]any
	for _, ev := range r.ClaudeEvents() {
		if ev["type"] == "system" && ev["subtype"] == "init" {
			inits = append(inits, fmt.Sprint(ev["session_id"]))
		}
		if ev["type"] == "result" {
			results = append(results, ev)
		}
	}
	if len(inits) < 2 || len(results) != len(inits) || inits[0] != sid || inits[len(inits)-1] == sid {
		t.Fatalf("stream-json attempts: inits %v, %d results\n%s", inits, len(results), r.Stdout)
	}
	for i, res := range results {
		last := i == len(results)-1
		if (res["is_error"] == true) == last || res["session_id"] != inits[i] {
			t.Errorf("attempt %d of %d: init %s, result %v", i+1, len(results), inits[i], res)
		}
	}
}

func findTranscript(t *testing.T, env *harness.Env, sid string) string {
	t.Helper()
	for _, p := range env.ClaudeTranscripts() {
		if strings.TrimSuffix(filepath.Base(p), ".jsonl") == sid {
			return p
		}
	}
	t.Fatalf("no transcript for %s", sid)
	return ""
}

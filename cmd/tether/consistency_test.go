package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/identity"
	"github.com/tether-dev/tether/internal/gauge"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/shellinit"
	"github.com/tether-dev/tether/state"
)

// The consistency guard: for one session, the catalog, what `tether hook`
// stores, what `tether prompt` and `tether statusline` show and the window
// `trim --fit` works against are the same numbers, because they come from
// one reader and one window function (package agent).

// consistencyCase is one transcript put under the test HOME.
type consistencyCase struct {
	name    string
	harness string
	id      string
	data    []byte
}

func readTestdata(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(testutil.Testdata(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generatedTranscript is a small Claude Code 2.1-style session of one
// turn with model and the given context usage.
func generatedTranscript(id, model string, tokens int64) []byte {
	env := func(uuid, parent, typ string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`"type":%q,"uuid":%q,"parentUuid":%s,"sessionId":%q,"timestamp":"2026-11-30T10:00:00.000Z","isSidechain":false,"version":"2.1.332","cwd":"/home/example/src/proj"`, typ, uuid, p, id)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{%s,"message":{"role":"user","content":"hello there"}}`+"\n", env("u1", "", "user"))
	fmt.Fprintf(&b, `{%s,"message":{"id":"msg_1","role":"assistant","model":%q,"content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":1000,"cache_read_input_tokens":2000,"output_tokens":5}}}`+"\n",
		env("a1", "u1", "assistant"), model, tokens-3000)
	return b.Bytes()
}

func consistencyCases(t *testing.T) []consistencyCase {
	var cs []consistencyCase
	n := 0
	claudeID := func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	for _, g := range []struct{ dir, name string }{
		{"claude-code-2.0.77", "golden-tool-session.jsonl"}, {"claude-code-2.1.332", "golden-tool-session.jsonl"},
		{"claude-code-2.0.77", "golden-fork.jsonl"}, {"claude-code-2.1.332", "golden-fork.jsonl"},
		{"claude-code-2.0.77", "golden-prompt-too-long.jsonl"}, {"claude-code-2.1.332", "golden-prompt-too-long.jsonl"},
		{"claude-code-2.0.77", "sample-tool-session.jsonl"}, {"claude-code-2.1.332", "sample-tool-session.jsonl"},
	} {
		cs = append(cs, consistencyCase{g.dir + "/" + g.name, agent.Claude, claudeID(), readTestdata(t, g.dir, g.name)})
	}
	for _, model := range []string{"claude-opus-5-5", "claude-opus-5-1", "claude-sonnet-4-5", "claude-sonnet-4-5[1m]", "some-unknown-model-7"} {
		id := claudeID()
		cs = append(cs, consistencyCase{"generated/" + model, agent.Claude, id, generatedTranscript(id, model, 150_000)})
	}
	cs = append(cs,
		consistencyCase{"codex-0.171.0/golden-rollout-exec-resume.jsonl", agent.Codex, "", readTestdata(t, "codex-0.171.0", "golden-rollout-exec-resume.jsonl")},
		consistencyCase{"codex-0.171.0/sample-rollout-tool-resume.jsonl", agent.Codex, "", readTestdata(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl")},
	)
	return cs
}

// install writes the transcript where its agent keeps it and returns its
// path (and the Codex thread id, taken from its session_meta).
func (c *consistencyCase) install(t *testing.T, ta *testApp) string {
	t.Helper()
	if c.harness == agent.Codex {
		c.id = gjson.GetBytes(c.data[:bytes.IndexByte(c.data, '\n')], "payload.id").String()
		p := filepath.Join(codex.SessionsDir(ta.env["CODEX_HOME"]), "2026", "11", "30", "rollout-2026-11-30T11-02-34-"+c.id+".jsonl")
		put(t, p, c.data)
		return p
	}
	p := filepath.Join(claude.ProjectsDir(ta.env["CLAUDE_CONFIG_DIR"]), "-home-example-src-proj", c.id+".jsonl")
	put(t, p, c.data)
	return p
}

type ctxNumbers struct {
	tokens, window int64
	pct            float64
}

func (ta *testApp) catalogContext(t *testing.T, id string) (ctxNumbers, bool) {
	t.Helper()
	ta.out.Reset()
	if code := ta.run("sessions", "list", "--json", "--all"); code != 0 {
		t.Fatalf("sessions list: %d %s", code, ta.err)
	}
	s := gjson.Get(ta.out.String(), `sessions.#(id=="`+id+`")`)
	if !s.Exists() {
		t.Fatalf("session %s not listed: %s", id, ta.out)
	}
	c := s.Get("context")
	return ctxNumbers{c.Get("tokens").Int(), c.Get("window").Int(), c.Get("percent").Float()}, c.Exists()
}

func (ta *testApp) hookStop(t *testing.T, c consistencyCase, path string) state.Session {
	t.Helper()
	payload := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/home/example/src/proj","hook_event_name":"Stop"}`, c.id, path)
	if c.harness == agent.Codex {
		payload, _ = sjson.Set(payload, "turn_id", "t1")
	}
	ta.IO.In = strings.NewReader(payload)
	if code := ta.run("hook"); code != 0 {
		t.Fatalf("hook: %d", code)
	}
	st, err := state.LoadSession(ta.Loc.StateDir, c.id)
	if err != nil {
		t.Fatalf("hook stored nothing: %v", err)
	}
	return st
}

func TestContextNumbersAgree(t *testing.T) {
	for _, c := range consistencyCases(t) {
		t.Run(c.name, func(t *testing.T) {
			ta := newTestApp(t)
			// The prompt's root, fixed before the app computes it once.
			ta.env[identity.EnvRoot] = identity.Resolve("/home/example/src/proj").Path
			path := c.install(t, ta)
			cat, ok := ta.catalogContext(t, c.id)
			st := ta.hookStop(t, c, path)
			if !ok {
				// A session whose only reply was an API error (the
				// prompt-too-long goldens) has no usage anywhere.
				if st.UsageKnown || !strings.Contains(c.name, "prompt-too-long") {
					t.Errorf("catalog has no usage, hook stored %+v", st)
				}
				return
			}
			if !st.UsageKnown || st.Tokens != cat.tokens || st.Window != cat.window || st.Percent != cat.pct {
				t.Errorf("hook stored %d/%d %.1f%% (known %v), catalog %+v", st.Tokens, st.Window, st.Percent, st.UsageKnown, cat)
			}
			// The prompt segment shows what the hook stored.
			ta.out.Reset()
			const format = "{tokens}/{window} {pct}"
			ta.run("prompt", "--format", format)
			want := shellinit.Segment(shellinit.Usage{Tokens: cat.tokens, Window: cat.window, Percent: cat.pct}, shellinit.SegmentOptions{Format: format, Warn: 101, Crit: 101})
			if got := strings.TrimSpace(ta.out.String()); got != want {
				t.Errorf("prompt %q, want %q (catalog %+v)", got, want, cat)
			}
			if c.harness != agent.Claude {
				return
			}
			// The statusLine, when Claude reports no window, shows the same.
			in, _ := sjson.Set(`{"model":{"display_name":"M"},"context_window":{"current_usage":{}}}`, "session_id", c.id)
			in, _ = sjson.Set(in, "model.id", st.Model)
			in, _ = sjson.Set(in, "context_window.current_usage.input_tokens", cat.tokens)
			ta.IO.In = strings.NewReader(in)
			ta.out.Reset()
			ta.run("statusline")
			if want := "(" + gauge.Tokens(cat.tokens) + "/" + gauge.Tokens(cat.window) + ")"; !strings.Contains(ta.out.String(), want) {
				t.Errorf("statusline %q, want %s", ta.out, want)
			}
			// trim --fit N% works against the same window.
			ta.out.Reset()
			if code := ta.run("trim", "--fit", "50%", "--dry-run", "--json", c.id); code != 0 {
				t.Fatalf("trim: %d %s", code, ta.err)
			}
			if w := gjson.Get(ta.out.String(), "window").Int(); w != cat.window {
				t.Errorf("trim --fit window %d, catalog %d", w, cat.window)
			}
		})
	}
}

// TestReportedWindowIsRememberedPerModel: once a statusLine reported a
// window for a model, every session of that model uses it, everywhere.
// claude-opus-5-1 has no observed window (the catalog and trim used to say
// 1M, the hooks 200k): 200k by default, until Claude Code reports one.
func TestReportedWindowIsRememberedPerModel(t *testing.T) {
	ta := newTestApp(t)
	c := consistencyCase{"opus-5-1", agent.Claude, "00000000-0000-4000-8000-000000000051", nil}
	c.data = generatedTranscript(c.id, "claude-opus-5-1", 150_000)
	path := c.install(t, ta)
	if cat, _ := ta.catalogContext(t, c.id); cat.window != 200_000 {
		t.Fatalf("claude-opus-5-1 before any report: window %d, want 200000", cat.window)
	}
	// Another session's statusLine reports 1M for the model.
	ta.IO.In = strings.NewReader(`{"session_id":"other","model":{"id":"claude-opus-5-1","display_name":"Opus 5.1"},"context_window":{"context_window_size":1000000,"current_usage":null}}`)
	ta.run("statusline")
	cat, _ := ta.catalogContext(t, c.id)
	st := ta.hookStop(t, c, path)
	ta.out.Reset()
	ta.run("trim", "--fit", "50%", "--dry-run", "--json", c.id)
	trimWindow := gjson.Get(ta.out.String(), "window").Int()
	if cat.window != 1_000_000 || st.Window != 1_000_000 || trimWindow != 1_000_000 || st.WindowSource != agent.SourceStatusline {
		t.Errorf("after a reported 1M: catalog %d, hook %d (%s), trim %d", cat.window, st.Window, st.WindowSource, trimWindow)
	}
	if cat.pct != 15 || st.Percent != 15 {
		t.Errorf("percent: catalog %v hook %v, want 15", cat.pct, st.Percent)
	}
}

package hooks

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/internal/eventlog"

	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
)

type handlerEnv struct {
	Env
	logPath string
	now     time.Time
	env     map[string]string
}

// testAgents are the agents of both binaries (cmd/internal/hot's registry),
// bound to the given data roots.
func testAgents(claudeDir, codexDir string) agent.Registry {
	return agent.Registry{claude.New(claudeDir), codex.New(codexDir)}
}

func newHandlerEnv(t *testing.T) *handlerEnv {
	dir := t.TempDir()
	h := &handlerEnv{logPath: filepath.Join(dir, "events.jsonl"), now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), env: map[string]string{}}
	h.Env = Env{
		StateDir: filepath.Join(dir, "state"),
		Agents:   testAgents("", ""),
		Getenv:   func(k string) string { return h.env[k] },
		Now:      func() time.Time { return h.now },
		Log:      eventlog.Open(eventlog.Options{Path: h.logPath, Level: -4}),
	}
	// Every record a test made is an event eventlog lists, with fields it
	// lists for it.
	t.Cleanup(func() {
		eventlog.ReadAll(h.logPath, func(r eventlog.Record) {
			if err := eventlog.Check(r); err != nil {
				t.Errorf("%v: %s", err, r.Raw)
			}
		})
	})
	return h
}

func (h *handlerEnv) handle(t *testing.T, payload string) Result {
	t.Helper()
	p, err := ParsePayload([]byte(payload), h.Agents)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Handle(h.Env, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (h *handlerEnv) records(t *testing.T, event string) []gjson.Result {
	data, _ := os.ReadFile(h.logPath)
	var out []gjson.Result
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if r := gjson.Parse(l); r.Get("event").String() == event {
			out = append(out, r)
		}
	}
	return out
}

func TestIdentityRootPinnedAtFirstEvent(t *testing.T) {
	h := newHandlerEnv(t)
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	os.Mkdir(sub, 0o755)
	h.handle(t, `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"`+root+`/","transcript_path":"/x/projects/p/s1.jsonl"}`)
	res := h.handle(t, `{"session_id":"s1","hook_event_name":"Stop","cwd":"`+sub+`","transcript_path":"/x/projects/p/s1.jsonl"}`)
	wantRoot, _ := filepath.EvalSymlinks(root)
	if res.Root != wantRoot || res.State.IdentityRoot != wantRoot || res.State.Cwd != sub {
		t.Errorf("root %q state %+v, want root %q", res.Root, res.State, wantRoot)
	}
	// The trailing-slash spelling and the later cd both differ from the
	// root: two path_normalized records, each naming the raw cwd.
	norm := h.records(t, EvPathNormalized)
	if len(norm) != 2 || norm[0].Get("cwd").String() != root+"/" || norm[1].Get("cwd").String() != sub {
		t.Errorf("path_normalized: %v", norm)
	}
	spawn := h.records(t, EvSpawn)
	if len(spawn) != 1 || spawn[0].Get("identity_root").String() != wantRoot || spawn[0].Get("normalized_cwd").String() != wantRoot {
		t.Errorf("spawn: %v", spawn)
	}
	// The index names the session; the reader API returns it.
	st, err := state.LatestForRoot(h.StateDir, wantRoot)
	if err != nil || st.SessionID != "s1" || st.LastEvent != "Stop" {
		t.Errorf("LatestForRoot: %+v %v", st, err)
	}
	if _, err := state.LatestForRoot(h.StateDir, "/elsewhere"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unknown root: %v", err)
	}

	// The wrapper's root wins, verbatim.
	h.env["TETHER_IDENTITY_ROOT"] = "/home/example/src/project"
	res = h.handle(t, `{"session_id":"s2","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/project/sub"}`)
	if res.Root != "/home/example/src/project" {
		t.Errorf("pinned root: %q", res.Root)
	}
}

func TestStopUsageSelfReportAndSessionEnd(t *testing.T) {
	h := newHandlerEnv(t)
	h.SelfReport = true
	tr := writeLines(t, assistant("m1", 100, 0, 19900, ""))
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/p","transcript_path":"`+tr+`"}`)
	h.now = h.now.Add(90 * time.Second)
	res := h.handle(t, `{"session_id":"s","hook_event_name":"Stop","cwd":"/home/example/src/p","transcript_path":"`+tr+`","last_assistant_message":"secret words [ctx: ~12%]"}`)
	if res.State.Tokens != 20000 || res.State.Window != 1_000_000 || res.State.Percent != 2 {
		t.Errorf("state: %+v", res.State)
	}
	cu := h.records(t, EvContextUsage)
	if len(cu) != 1 || cu[0].Get("sdk_pct").Float() != 2 || cu[0].Get("self_reported_pct").Float() != 12 {
		t.Errorf("context_usage: %v", cu)
	}
	// A window reported by the statusLine wins from then on.
	st := res.State
	st.ReportedWindow = 200_000
	if err := state.Save(h.StateDir, st); err != nil {
		t.Fatal(err)
	}
	res = h.handle(t, `{"session_id":"s","hook_event_name":"Stop","cwd":"/home/example/src/p","transcript_path":"`+tr+`"}`)
	if res.State.Window != 200_000 || res.State.Percent != 10 || res.State.WindowSource != "statusline" {
		t.Errorf("reported window: %+v", res.State)
	}
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionEnd","reason":"prompt_input_exit","cwd":"/home/example/src/p"}`)
	end := h.records(t, EvSessionEnd)
	if len(end) != 1 || end[0].Get("duration_ms").Int() != 90_000 || end[0].Get("tokens").Int() != 20000 || end[0].Get("reason").String() != "prompt_input_exit" {
		t.Errorf("session_end: %v", end)
	}
	data, _ := os.ReadFile(h.logPath)
	if strings.Contains(string(data), "secret words") {
		t.Error("assistant text in the log")
	}
}

func TestCompactionAndFailure(t *testing.T) {
	h := newHandlerEnv(t)
	tr := writeLines(t, assistant("m1", 100, 0, 150000, ""))
	h.handle(t, `{"session_id":"s","hook_event_name":"Stop","cwd":"/p","transcript_path":"`+tr+`"}`)
	h.handle(t, `{"session_id":"s","hook_event_name":"PreCompact","trigger":"auto","cwd":"/p","transcript_path":"`+tr+`"}`)
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":150100,"postTokens":3000}}` + "\n")
	f.Close()
	res := h.handle(t, `{"session_id":"s","hook_event_name":"PostCompact","trigger":"auto","cwd":"/p","transcript_path":"`+tr+`"}`)
	pre, post := h.records(t, EvCompactStart), h.records(t, EvCompactEnd)
	if len(pre) != 1 || pre[0].Get("tokens_before").Int() != 150100 || pre[0].Get("trigger").String() != "auto" {
		t.Errorf("compact_start: %v", pre)
	}
	if len(post) != 1 || post[0].Get("tokens_before").Int() != 150100 || post[0].Get("tokens_after").Int() != 3000 {
		t.Errorf("compact_end: %v", post)
	}
	if res.State.Tokens != 3000 {
		t.Errorf("state after compaction: %+v", res.State)
	}
	h.handle(t, `{"session_id":"s","hook_event_name":"StopFailure","error":"invalid_request","error_details":"400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}","cwd":"/p"}`)
	fail := h.records(t, EvTurnFailure)
	if len(fail) != 1 || !fail[0].Get("prompt_too_long").Bool() || fail[0].Get("error").String() != "invalid_request" {
		t.Errorf("turn_failure: %v", fail)
	}
}

func TestUnknownEventAndCorruptState(t *testing.T) {
	h := newHandlerEnv(t)
	os.MkdirAll(filepath.Join(h.StateDir, "sessions"), 0o700)
	os.WriteFile(state.SessionPath(h.StateDir, "s"), []byte("{not json"), 0o600)
	res := h.handle(t, `{"session_id":"s","hook_event_name":"FutureEvent","new_field":{"x":1},"cwd":"/p"}`)
	if res.Event != EvUnknownEvent || !res.Saved {
		t.Errorf("unknown event: %+v", res)
	}
	if st, err := state.LoadSession(h.StateDir, "s"); err != nil || st.SessionID != "s" {
		t.Errorf("corrupt state not replaced: %+v %v", st, err)
	}
	if len(h.records(t, EvUnknownEvent)) != 1 {
		t.Error("unknown event not logged at debug")
	}
	// A session id cannot escape the state directory.
	if p := state.SessionPath("/state", "../../etc/passwd"); filepath.Dir(p) != "/state/sessions" {
		t.Errorf("SessionPath escapes: %s", p)
	}
}

func TestCodexNotifyPayload(t *testing.T) {
	agents := testAgents("", "")
	p, err := ParsePayload([]byte(`{"type":"agent-turn-complete","thread-id":"01a22c2f-3746-71e3-b6a2-4b1f3c2bdb99","turn-id":"t1","cwd":"/home/example/src/proj","client":"codex_exec","input-messages":["hi"],"last-assistant-message":"hello"}`), agents)
	claudeEnv := func(string) string { return "set" }
	if err != nil || p.Event != "Stop" || p.SessionID != "01a22c2f-3746-71e3-b6a2-4b1f3c2bdb99" || DetectAgent(agents, p, claudeEnv).Name() != eventlog.Codex {
		t.Errorf("%+v %v", p, err)
	}
}

func TestCodexNotifyFindsRollout(t *testing.T) {
	h := newHandlerEnv(t)
	codexDir := t.TempDir()
	h.Agents = testAgents("", codexDir)
	id := "01a22c1e-edbd-73b1-9ee8-1fcd43d77fc9"
	day := filepath.Join(codexDir, "sessions", "2026", "11", "30")
	os.MkdirAll(day, 0o700)
	data, _ := os.ReadFile(testutil.Testdata(t, "codex-0.171.0", "sample-rollout-tool-resume.jsonl"))
	os.WriteFile(filepath.Join(day, "rollout-2026-11-30T11-02-34-"+id+".jsonl"), data, 0o600)
	res := h.handle(t, `{"type":"agent-turn-complete","thread-id":"`+id+`","turn-id":"t","cwd":"/home/example/src/codex-proj","client":"codex_exec","input-messages":["hi"],"last-assistant-message":"x"}`)
	if res.Harness != eventlog.Codex || res.State.Tokens != 153 || res.State.Window != 258400 {
		t.Errorf("notify turn: %+v", res)
	}
}

// TestPostCompactBeforeBoundaryIsWritten: Claude Code 2.1.332 fires
// PostCompact before the compact boundary reaches the transcript; the
// pre-compaction usage must not be reported as the context after it.
func TestPostCompactBeforeBoundaryIsWritten(t *testing.T) {
	h := newHandlerEnv(t)
	tr := writeLines(t, assistant("m1", 100, 0, 1000, ""))
	h.handle(t, `{"session_id":"s","hook_event_name":"Stop","cwd":"/p","transcript_path":"`+tr+`"}`)
	res := h.handle(t, `{"session_id":"s","hook_event_name":"PostCompact","trigger":"manual","cwd":"/p","transcript_path":"`+tr+`"}`)
	post := h.records(t, EvCompactEnd)
	if len(post) != 1 || post[0].Get("tokens_after").Exists() || post[0].Get("tokens_before").Int() != 1100 || !post[0].Get("boundary_pending").Bool() {
		t.Errorf("compact_end: %v", post)
	}
	if res.State.UsageKnown {
		t.Errorf("usage still known after compaction: %+v", res.State)
	}
	// The boundary lands; SessionStart(compact) picks up its postTokens.
	f, _ := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":1110,"postTokens":2612}}` + "\n")
	f.Close()
	res = h.handle(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"compact","cwd":"/p","transcript_path":"`+tr+`"}`)
	if c := h.records(t, EvCompacted); len(c) != 1 || c[0].Get("tokens_after").Int() != 2612 || res.State.Tokens != 2612 {
		t.Errorf("session_compacted: %v %+v", c, res.State)
	}
}

// TestSessionEndRecordsALostStopFailure: Claude may exit before its
// fire-and-forget StopFailure hook runs; SessionEnd then finds the failed
// turn at the end of the transcript, once.
func TestSessionEndRecordsALostStopFailure(t *testing.T) {
	apiErr := `{"parentUuid":"u1","isSidechain":false,"type":"assistant","uuid":"a1","isApiErrorMessage":true,"error":"invalid_request","message":{"model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"Prompt is too long"}]}}`
	user := `{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u1","message":{"role":"user","content":"TOO_LONG"}}`
	for name, c := range map[string]struct {
		lines     []string
		stopFirst bool
		want      int
	}{
		"lost":          {[]string{user, apiErr}, false, 1},
		"already seen":  {[]string{user, apiErr}, true, 1},
		"normal ending": {[]string{user, assistant("m1", 10, 0, 0, "")}, false, 0},
		"side chain":    {[]string{user, strings.Replace(apiErr, `"isSidechain":false`, `"isSidechain":true`, 1)}, false, 0},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHandlerEnv(t)
			tr := writeLines(t, c.lines...)
			h.env["CLAUDE_CODE_SESSION_ID"] = "s"
			if c.stopFirst {
				h.handle(t, `{"session_id":"s","hook_event_name":"StopFailure","error":"invalid_request","error_details":"prompt is too long","cwd":"/p","transcript_path":"`+tr+`"}`)
			}
			h.handle(t, `{"session_id":"s","hook_event_name":"SessionEnd","reason":"other","cwd":"/p","transcript_path":"`+tr+`"}`)
			fail := h.records(t, EvTurnFailure)
			if len(fail) != c.want {
				t.Fatalf("turn_failure records: %v", fail)
			}
			if c.want == 1 && !fail[0].Get("prompt_too_long").Bool() {
				t.Errorf("turn_failure: %s", fail[0].Raw)
			}
		})
	}
}

// TestResumeRunDurationAndOneTranscriptBytes: session_end after a resume
// counts from this run's SessionStart, not the session's creation, and
// session_resume carries transcript_bytes once.
func TestResumeRunDurationAndOneTranscriptBytes(t *testing.T) {
	h := newHandlerEnv(t)
	tr := writeLines(t, assistant("m1", 100, 0, 19900, ""))
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/p","transcript_path":"`+tr+`"}`)
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionEnd","reason":"other","cwd":"/home/example/src/p"}`)
	h.now = h.now.Add(48 * time.Hour)
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionStart","source":"resume","cwd":"/home/example/src/p","transcript_path":"`+tr+`"}`)
	h.now = h.now.Add(30 * time.Second)
	h.handle(t, `{"session_id":"s","hook_event_name":"SessionEnd","reason":"other","cwd":"/home/example/src/p"}`)
	end := h.records(t, EvSessionEnd)
	if len(end) != 2 || end[1].Get("duration_ms").Int() != 30_000 {
		t.Errorf("session_end after resume: %v", end)
	}
	resume := h.records(t, EvResume)
	if len(resume) != 1 || strings.Count(resume[0].Raw, `"transcript_bytes"`) != 1 {
		t.Errorf("session_resume: %v", resume)
	}
}

// An unusable TETHER_IDENTITY_ROOT is ignored with a warning and the root
// comes from the payload's cwd; an unset one warns of nothing.
func TestUnusablePinIgnored(t *testing.T) {
	h := newHandlerEnv(t)
	h.handle(t, `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/a"}`)
	if recs := h.records(t, EvHookError); len(recs) != 0 {
		t.Errorf("unset pin warned: %v", recs)
	}
	h.env["TETHER_IDENTITY_ROOT"] = "src/project"
	res := h.handle(t, `{"session_id":"s2","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/b"}`)
	if res.Root != "/home/example/src/b" {
		t.Errorf("root %q, want the cwd's", res.Root)
	}
	recs := h.records(t, EvHookError)
	if len(recs) != 1 || recs[0].Get("error").String() != `ignored: $TETHER_IDENTITY_ROOT is not an absolute path: "src/project"` {
		t.Errorf("warnings: %v", recs)
	}
}

// TestHandleNeedsAnAgent: without one to read the payload (an empty
// registry, or a forced harness no agent has), nothing is written.
func TestHandleNeedsAnAgent(t *testing.T) {
	for _, c := range []struct {
		agents  agent.Registry
		harness string
	}{{nil, ""}, {testAgents("", ""), "opencode"}} {
		h := newHandlerEnv(t)
		h.Agents, h.Harness = c.agents, c.harness
		p, _ := ParsePayload([]byte(`{"hook_event_name":"Stop","session_id":"s1","cwd":"/home/example/src/proj"}`), c.agents)
		if res, err := Handle(h.Env, p); err == nil || res.Saved {
			t.Errorf("%q %q: handled without an agent: %+v", c.agents.Names(), c.harness, res)
		}
	}
}

// TestDetectAgentPrecedence: a field only Codex sends wins over Claude
// Code's environment (a Codex run inside a Claude session inherits it);
// Claude Code's markers win over turn_id, which Codex sends but another
// agent might; with nothing to go by, the first agent.
func TestDetectAgentPrecedence(t *testing.T) {
	agents := testAgents("/home/example/.claude", "/home/example/.codex")
	claudeEnv := func(k string) string {
		if k == "CLAUDE_CODE_SESSION_ID" {
			return "s"
		}
		return ""
	}
	noEnv := func(string) string { return "" }
	for _, c := range []struct {
		payload string
		env     func(string) string
		want    string
	}{
		{`{"session_id":"s","thread_id":"t"}`, claudeEnv, eventlog.Codex},
		{`{"session_id":"s","model_provider":"openai"}`, claudeEnv, eventlog.Codex},
		{`{"session_id":"s","transcript_path":"/x/sessions/2026/11/30/rollout-2026-11-30T10-00-00-s.jsonl"}`, claudeEnv, eventlog.Codex},
		{`{"session_id":"s","transcript_path":"/home/example/.codex/other/s.jsonl"}`, claudeEnv, eventlog.Codex},
		{`{"session_id":"s","turn_id":"t"}`, claudeEnv, eventlog.ClaudeCode},
		{`{"session_id":"s","turn_id":"t","transcript_path":"/home/example/.claude/projects/p/s.jsonl"}`, noEnv, eventlog.ClaudeCode},
		{`{"session_id":"s","turn_id":"t","prompt_id":"p"}`, noEnv, eventlog.ClaudeCode},
		{`{"session_id":"s","turn_id":"t"}`, noEnv, eventlog.Codex},
		{`{"session_id":"s"}`, noEnv, eventlog.ClaudeCode},
	} {
		p, err := ParsePayload([]byte(c.payload), agents)
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectAgent(agents, p, c.env).Name(); got != c.want {
			t.Errorf("%s: %s, want %s", c.payload, got, c.want)
		}
	}
}

package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetLogger(t.Logf)
	return s
}

type sseEvent struct {
	Name string
	Data map[string]any
}

func post(t *testing.T, url string, header map[string]string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	var evs []sseEvent
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Errorf("event %q has data type %v", name, d["type"])
			}
			evs = append(evs, sseEvent{Name: name, Data: d})
		case line == "":
			name = ""
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

func names(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func get(m any, path ...string) any {
	for _, p := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[p]
	}
	return m
}

// anthropicResult is a streamed Anthropic message put back together.
type anthropicResult struct {
	events     []string
	text       string
	toolName   string
	toolID     string
	toolInput  map[string]any
	stopReason string
	startUsage map[string]any
	deltaUsage map[string]any
}

func collectAnthropic(t *testing.T, evs []sseEvent) anthropicResult {
	t.Helper()
	var r anthropicResult
	var partial strings.Builder
	open := -1
	for _, e := range evs {
		r.events = append(r.events, e.Name)
		switch e.Name {
		case "message_start":
			r.startUsage, _ = get(e.Data, "message", "usage").(map[string]any)
			if get(e.Data, "message", "role") != "assistant" {
				t.Errorf("message_start role = %v", get(e.Data, "message", "role"))
			}
		case "content_block_start":
			if open != -1 {
				t.Errorf("content_block_start while block %d is open", open)
			}
			open = num(e.Data["index"])
			if get(e.Data, "content_block", "type") == "tool_use" {
				r.toolName, _ = get(e.Data, "content_block", "name").(string)
				r.toolID, _ = get(e.Data, "content_block", "id").(string)
			}
		case "content_block_delta":
			if num(e.Data["index"]) != open {
				t.Errorf("delta for index %v, open block %d", e.Data["index"], open)
			}
			switch get(e.Data, "delta", "type") {
			case "text_delta":
				r.text += get(e.Data, "delta", "text").(string)
			case "input_json_delta":
				partial.WriteString(get(e.Data, "delta", "partial_json").(string))
			default:
				t.Errorf("unknown delta %v", e.Data["delta"])
			}
		case "content_block_stop":
			if num(e.Data["index"]) != open {
				t.Errorf("stop for index %v, open block %d", e.Data["index"], open)
			}
			open = -1
		case "message_delta":
			r.stopReason, _ = get(e.Data, "delta", "stop_reason").(string)
			r.deltaUsage, _ = e.Data["usage"].(map[string]any)
		}
	}
	if partial.Len() > 0 {
		if err := json.Unmarshal([]byte(partial.String()), &r.toolInput); err != nil {
			t.Fatalf("tool input %q: %v", partial.String(), err)
		}
	}
	if len(r.events) < 2 || r.events[0] != "message_start" || r.events[len(r.events)-1] != "message_stop" || r.events[len(r.events)-2] != "message_delta" {
		t.Errorf("event order = %v", r.events)
	}
	return r
}

func userMsg(text string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}
}

var claudeTools = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{}}, map[string]any{"name": "Read", "input_schema": map[string]any{}}}

func claudeReq(msgs ...any) map[string]any {
	return map[string]any{"model": "claude-test", "max_tokens": 1000, "stream": true, "tools": claudeTools, "messages": msgs}
}

func sendClaude(t *testing.T, s *Server, body map[string]any) anthropicResult {
	t.Helper()
	resp := post(t, s.URL()+"/v1/messages?beta=true", map[string]string{"x-api-key": "sk-ant-secret", "anthropic-version": "2023-06-01"}, body)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if !strings.HasPrefix(resp.Header.Get("request-id"), "req_") {
		t.Errorf("request-id header = %q", resp.Header.Get("request-id"))
	}
	return collectAnthropic(t, readSSE(t, resp))
}

func TestAnthropicTextStream(t *testing.T) {
	s := start(t)
	r := sendClaude(t, s, claudeReq(userMsg("hello")))
	if r.text != "ok" {
		t.Errorf("text = %q, want ok", r.text)
	}
	if r.stopReason != "end_turn" {
		t.Errorf("stop_reason = %q", r.stopReason)
	}
	want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if strings.Join(r.events, ",") != strings.Join(want, ",") {
		t.Errorf("events = %v, want %v", r.events, want)
	}
	for _, u := range []map[string]any{r.startUsage, r.deltaUsage} {
		if num(u["input_tokens"]) != DefaultUsage.InputTokens || num(u["cache_read_input_tokens"]) != DefaultUsage.CacheReadInputTokens || num(u["output_tokens"]) != DefaultUsage.OutputTokens {
			t.Errorf("usage = %v, want %+v", u, DefaultUsage)
		}
	}
}

func TestAnthropicLongTextIsChunked(t *testing.T) {
	s := start(t)
	long := strings.Repeat("héllo wörld ", 20)
	s.Enqueue(Text(long))
	resp := post(t, s.URL()+"/v1/messages", nil, claudeReq(userMsg("x")))
	evs := readSSE(t, resp)
	r := collectAnthropic(t, evs)
	if r.text != long {
		t.Errorf("text = %q", r.text)
	}
	deltas := 0
	for _, n := range names(evs) {
		if n == "content_block_delta" {
			deltas++
		}
	}
	if deltas < 2 {
		t.Errorf("%d deltas for %d bytes", deltas, len(long))
	}
}

func TestAnthropicUsageExact(t *testing.T) {
	s := start(t)
	u := Usage{InputTokens: 7, CacheCreationInputTokens: 1234, CacheReadInputTokens: 56789, OutputTokens: 42}
	s.Enqueue(Text("a").WithUsage(u))
	r := sendClaude(t, s, claudeReq(userMsg("hello")))
	for name, got := range map[string]map[string]any{"message_start": r.startUsage, "message_delta": r.deltaUsage} {
		if num(got["input_tokens"]) != 7 || num(got["cache_creation_input_tokens"]) != 1234 || num(got["cache_read_input_tokens"]) != 56789 || num(got["output_tokens"]) != 42 {
			t.Errorf("%s usage = %v", name, got)
		}
	}
	// The server default applies to the next reply.
	s.SetDefaultUsage(Usage{InputTokens: 1, OutputTokens: 2})
	r = sendClaude(t, s, claudeReq(userMsg("hello")))
	if num(r.deltaUsage["input_tokens"]) != 1 || num(r.deltaUsage["cache_read_input_tokens"]) != 0 || num(r.deltaUsage["output_tokens"]) != 2 {
		t.Errorf("default usage = %v", r.deltaUsage)
	}
}

func TestAnthropicDefaultToolRules(t *testing.T) {
	s := start(t)
	r := sendClaude(t, s, claudeReq(userMsg("please TOOL_BASH now")))
	if r.toolName != "Bash" || r.toolInput["command"] != "echo hi" || r.stopReason != "tool_use" {
		t.Fatalf("got tool %q input %v stop %q", r.toolName, r.toolInput, r.stopReason)
	}
	if r.text == "" {
		t.Errorf("expected a preamble text block before the tool_use")
	}
	// The tool result comes back: "Done.".
	hist := []any{
		userMsg("please TOOL_BASH now"),
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": r.toolID, "name": "Bash", "input": r.toolInput}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": r.toolID, "content": "hi"}}},
	}
	r2 := sendClaude(t, s, claudeReq(hist...))
	if r2.text != "Done." || r2.toolName != "" {
		t.Errorf("after tool result: text %q tool %q", r2.text, r2.toolName)
	}
	if s.Pending() != 0 {
		t.Errorf("pending = %d after the follow-up", s.Pending())
	}

	r3 := sendClaude(t, s, claudeReq(userMsg("TOOL_READ:/tmp/some file.txt")))
	if r3.toolName != "Read" || r3.toolInput["file_path"] != "/tmp/some" {
		t.Errorf("read: %q %v", r3.toolName, r3.toolInput)
	}
	s.Reset()
	r4 := sendClaude(t, s, claudeReq(userMsg("read TOOL_READ:/etc/hostname.")))
	if r4.toolInput["file_path"] != "/etc/hostname" {
		t.Errorf("read path = %v", r4.toolInput["file_path"])
	}
}

func TestAnthropicErrors(t *testing.T) {
	s := start(t)
	cases := []struct {
		reply  Reply
		status int
		typ    string
		msg    string
	}{
		{PromptTooLong(210000, 200000), 400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"},
		{ContextLengthExceeded(), 400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"},
		{Overloaded(), 529, "overloaded_error", "Overloaded"},
		{ServerError(), 500, "api_error", "Internal server error"},
		{Error(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`), 429, "rate_limit_error", "slow down"},
	}
	for _, c := range cases {
		s.Enqueue(c.reply)
		resp := post(t, s.URL()+"/v1/messages?beta=true", nil, claudeReq(userMsg("hi")))
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.reply.Describe(), resp.StatusCode, c.status)
		}
		var e struct {
			Type  string
			Error struct{ Type, Message string }
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v: %s", c.reply.Describe(), err, b)
		}
		if e.Type != "error" || e.Error.Type != c.typ || e.Error.Message != c.msg {
			t.Errorf("%s: body %s", c.reply.Describe(), b)
		}
	}
	// TOO_LONG default rule.
	resp := post(t, s.URL()+"/v1/messages", nil, claudeReq(userMsg("this is TOO_LONG")))
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "prompt is too long: ") {
		t.Errorf("TOO_LONG: %d %s", resp.StatusCode, b)
	}
	reqs := s.Requests()
	if len(reqs) != len(cases)+1 || reqs[2].Status != 529 || !strings.HasPrefix(reqs[2].Served, "error:overloaded") {
		t.Errorf("recorded outcomes: %+v", reqs)
	}
}

func TestAnthropicNonStreaming(t *testing.T) {
	s := start(t)
	s.Enqueue(Bash("ls -l").WithText("look"))
	body := claudeReq(userMsg("hi"))
	body["stream"] = false
	resp := post(t, s.URL()+"/v1/messages", nil, body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var m struct {
		Type, Role string
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text, Name string
			Input            map[string]any
		}
		Usage map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.StopReason != "tool_use" || len(m.Content) != 2 || m.Content[0].Text != "look" || m.Content[1].Name != "Bash" || m.Content[1].Input["command"] != "ls -l" {
		t.Errorf("message = %+v", m)
	}
	if num(m.Usage["cache_read_input_tokens"]) != DefaultUsage.CacheReadInputTokens {
		t.Errorf("usage = %v", m.Usage)
	}
}

func TestQueueOrderAndFollowUps(t *testing.T) {
	s := start(t)
	s.Enqueue(
		Text("first"),
		Bash("make test").Then(Read("/x").Then(Text("read it"))),
		Text("last"),
	)
	if s.Pending() != 3 {
		t.Fatalf("pending = %d", s.Pending())
	}
	var got []string
	for i := 0; i < 6; i++ {
		r := sendClaude(t, s, claudeReq(userMsg("hello")))
		switch {
		case r.toolName != "":
			b, _ := json.Marshal(r.toolInput)
			got = append(got, r.toolName+string(b))
		default:
			got = append(got, r.text)
		}
	}
	want := []string{"first", `Bash{"command":"make test","description":"Run a command"}`, `Read{"file_path":"/x"}`, "read it", "last", "ok"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("replies:\n got %v\nwant %v", got, want)
	}
	// A tool call without Then is followed by "Done.", even when more is queued.
	s.Enqueue(Bash("true"), Text("after"))
	sendClaude(t, s, claudeReq(userMsg("x")))
	if r := sendClaude(t, s, claudeReq(userMsg("x"))); r.text != "Done." {
		t.Errorf("follow-up = %q", r.text)
	}
	if r := sendClaude(t, s, claudeReq(userMsg("x"))); r.text != "after" {
		t.Errorf("after follow-up = %q", r.text)
	}
}

func TestResponder(t *testing.T) {
	s := start(t)
	s.SetResponder(func(r Request) (Reply, bool) {
		if strings.Contains(r.LastUserText(), "custom") {
			return Text("custom reply"), true
		}
		return Reply{}, false
	})
	s.Enqueue(Text("queued"))
	if r := sendClaude(t, s, claudeReq(userMsg("custom"))); r.text != "queued" {
		t.Errorf("queue must win over the responder, got %q", r.text)
	}
	if r := sendClaude(t, s, claudeReq(userMsg("custom"))); r.text != "custom reply" {
		t.Errorf("responder: %q", r.text)
	}
	if r := sendClaude(t, s, claudeReq(userMsg("other"))); r.text != "ok" {
		t.Errorf("fallback to default: %q", r.text)
	}
}

func TestSideRequestsDoNotConsumeQueue(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("main"))
	// No tools: a title/topic request.
	noTools := map[string]any{"model": "claude-haiku-4-5", "max_tokens": 512, "stream": true, "messages": []any{userMsg("hello")}}
	if r := sendClaude(t, s, noTools); r.text != SideText {
		t.Errorf("side text = %q", r.text)
	}
	// 2.0.x subagent warm-up.
	if r := sendClaude(t, s, claudeReq(userMsg("Warmup"))); r.text != SideText {
		t.Errorf("warmup text = %q", r.text)
	}
	// Topic detection with an assistant prefill.
	prefill := map[string]any{"model": "claude-haiku-4-5", "max_tokens": 512, "stream": true, "messages": []any{
		userMsg("hello"), map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "{"}}},
	}}
	if r := sendClaude(t, s, prefill); !json.Valid([]byte("{" + r.text)) {
		t.Errorf("prefill continuation %q is not JSON", r.text)
	}
	if s.Pending() != 1 {
		t.Fatalf("side requests consumed the queue: pending %d", s.Pending())
	}
	if r := sendClaude(t, s, claudeReq(userMsg("hello"))); r.text != "main" {
		t.Errorf("main = %q", r.text)
	}
	reqs := s.Requests()
	if len(reqs) != 4 || !reqs[0].Side || !reqs[1].Side || !reqs[2].Side || reqs[3].Side {
		t.Errorf("side flags: %v %v %v %v", reqs[0].Side, reqs[1].Side, reqs[2].Side, reqs[3].Side)
	}
	if m := s.ModelRequests(); len(m) != 1 || m[0].Seq != 4 {
		t.Errorf("ModelRequests = %+v", m)
	}
	// A custom classifier.
	s.SetSideClassifier(func(Request) bool { return false })
	if r := sendClaude(t, s, claudeReq(userMsg("Warmup"))); r.text != "ok" {
		t.Errorf("with classifier off: %q", r.text)
	}
}

func TestRecording(t *testing.T) {
	s := start(t)
	body := map[string]any{
		"model": "claude-opus-x", "max_tokens": 321, "stream": true, "tools": claudeTools,
		"system": []any{map[string]any{"type": "text", "text": "You are a test."}},
		"messages": []any{
			map[string]any{"role": "user", "content": "first prompt"},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "calling"},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "ls"}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": "a.txt"}}, "is_error": true},
			}},
		},
	}
	resp := post(t, s.URL()+"/v1/messages?beta=true", map[string]string{
		"x-api-key": "sk-ant-very-secret", "Authorization": "Bearer sk-other-secret", "anthropic-version": "2023-06-01",
	}, body)
	io.Copy(io.Discard, resp.Body)

	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/messages" || r.Query != "beta=true" || r.API != APIAnthropic {
		t.Errorf("request line: %s %s ? %s (%s)", r.Method, r.Path, r.Query, r.API)
	}
	if r.Header.Get("X-Api-Key") != "REDACTED" || r.Header.Get("Authorization") != "REDACTED" || r.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Errorf("headers not redacted properly: %v", r.Header)
	}
	for _, rr := range reqs {
		if strings.Contains(fmt.Sprint(rr.Header), "secret") {
			t.Errorf("secret leaked in headers: %v", rr.Header)
		}
	}
	var raw map[string]any
	if err := json.Unmarshal(r.Body, &raw); err != nil || raw["model"] != "claude-opus-x" {
		t.Errorf("raw body not kept: %v %s", err, r.Body)
	}
	if r.Model != "claude-opus-x" || !r.Stream || r.MaxTokens != 321 || r.System != "You are a test." {
		t.Errorf("parsed: model %q stream %v max %d system %q", r.Model, r.Stream, r.MaxTokens, r.System)
	}
	if strings.Join(r.Tools, ",") != "Bash,Read" || !r.HasTool("Read") || r.HasTool("Write") {
		t.Errorf("tools = %v", r.Tools)
	}
	if len(r.Messages) != 3 || r.Messages[0].Role != "user" || r.Messages[0].Text != "first prompt" || r.Messages[1].Role != "assistant" || r.Messages[1].Text != "calling" {
		t.Fatalf("messages = %+v", r.Messages)
	}
	tu := r.AllToolUses()
	if len(tu) != 1 || tu[0].ID != "toolu_1" || tu[0].Name != "Bash" || string(tu[0].Input) != `{"command":"ls"}` {
		t.Errorf("tool uses = %+v", tu)
	}
	tr := r.AllToolResults()
	if len(tr) != 1 || tr[0].ID != "toolu_1" || tr[0].Content != "a.txt" || !tr[0].IsError {
		t.Errorf("tool results = %+v", tr)
	}
	if !r.EndsWithToolResult() || r.LastUserText() != "" || strings.Join(r.UserTexts(), "|") != "first prompt" {
		t.Errorf("helpers: ends %v last %q users %v", r.EndsWithToolResult(), r.LastUserText(), r.UserTexts())
	}
	if r.Served != "text:Done." || r.Status != 200 || r.Seq != 1 {
		t.Errorf("outcome: %q %d seq %d", r.Served, r.Status, r.Seq)
	}
	// Requests returns a copy.
	reqs[0].Model = "changed"
	if s.Requests()[0].Model != "claude-opus-x" {
		t.Error("Requests does not return a copy")
	}
	s.Enqueue(Text("x"))
	s.Reset()
	if len(s.Requests()) != 0 || s.Pending() != 0 {
		t.Errorf("after Reset: %d requests, %d pending", len(s.Requests()), s.Pending())
	}
	if _, ok := s.LastModelRequest(); ok {
		t.Error("LastModelRequest after Reset")
	}
}

func TestHelloCountTokensModelsUnknown(t *testing.T) {
	s := start(t)
	var logged []string
	var mu sync.Mutex
	s.SetLogger(func(f string, a ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(f, a...))
		mu.Unlock()
	})
	for _, m := range []string{http.MethodHead, http.MethodGet} {
		req, _ := http.NewRequest(m, s.URL()+"/api/hello", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s /api/hello = %d", m, resp.StatusCode)
		}
	}
	resp := post(t, s.URL()+"/v1/messages/count_tokens?beta=true", nil, claudeReq(userMsg("count me")))
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || resp.StatusCode != 200 || ct.InputTokens <= 0 {
		t.Errorf("count_tokens: %d %v %+v", resp.StatusCode, err, ct)
	}
	for _, tc := range []struct{ hdr, want string }{{"", `"object":"list"`}, {"2023-06-01", `"type":"model"`}} {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/v1/models", nil)
		if tc.hdr != "" {
			req.Header.Set("anthropic-version", tc.hdr)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), tc.want) {
			t.Errorf("models (%q): %d %s", tc.hdr, resp.StatusCode, b)
		}
	}
	resp2, err := http.Get(s.URL() + "/v2/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 404 {
		t.Errorf("unknown path = %d", resp2.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, l := range logged {
		found = found || strings.Contains(l, "unknown path GET /v2/nothing")
	}
	if !found {
		t.Errorf("unknown path not logged: %q", logged)
	}
	reqs := s.Requests()
	if len(reqs) != 6 || reqs[5].Served != "unknown" || reqs[0].Served != "hello" || !reqs[2].Side || reqs[2].IsModelCall() {
		t.Errorf("recorded: %+v", reqs)
	}
	if s.Pending() != 0 || len(s.ModelRequests()) != 0 {
		t.Error("count_tokens must not count as a model request")
	}
}

// --- OpenAI Responses API ---

func openAIReq(tools []string, items ...any) map[string]any {
	var ts []any
	for _, n := range tools {
		ts = append(ts, map[string]any{"type": "function", "name": n, "parameters": map[string]any{}})
	}
	return map[string]any{"model": "fake-model", "stream": true, "instructions": "", "tools": ts, "input": items}
}

var execTools = []string{"exec_command"}

func oaMsg(role, text string) map[string]any {
	typ := "input_text"
	if role == "assistant" {
		typ = "output_text"
	}
	return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
}

type openAIResult struct {
	events   []string
	text     string
	calls    []map[string]any // output_item.done function_call items
	args     string           // concatenated argument deltas
	response map[string]any   // response.completed's response
}

func sendOpenAI(t *testing.T, s *Server, body map[string]any) openAIResult {
	t.Helper()
	resp := post(t, s.URL()+"/v1/responses", map[string]string{"Authorization": "Bearer sk-openai-secret"}, body)
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	evs := readSSE(t, resp)
	var r openAIResult
	for i, e := range evs {
		r.events = append(r.events, e.Name)
		if got, ok := e.Data["sequence_number"].(float64); !ok || int(got) != i {
			t.Errorf("event %d (%s) sequence_number = %v", i, e.Name, e.Data["sequence_number"])
		}
		switch e.Name {
		case "response.output_text.delta":
			r.text += e.Data["delta"].(string)
		case "response.function_call_arguments.delta":
			r.args += e.Data["delta"].(string)
		case "response.function_call_arguments.done":
			if e.Data["arguments"] != r.args {
				t.Errorf("arguments.done %v != deltas %q", e.Data["arguments"], r.args)
			}
		case "response.output_item.done":
			if item, _ := e.Data["item"].(map[string]any); item["type"] == "function_call" {
				r.calls = append(r.calls, item)
			}
		case "response.completed":
			r.response, _ = e.Data["response"].(map[string]any)
		}
	}
	if len(r.events) == 0 || r.events[0] != "response.created" || r.events[len(r.events)-1] != "response.completed" {
		t.Errorf("events = %v", r.events)
	}
	return r
}

func TestOpenAITextStream(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("Hello from the fake, a longer text").WithUsage(Usage{InputTokens: 100, CacheReadInputTokens: 900, OutputTokens: 20, ReasoningOutputTokens: 5}))
	r := sendOpenAI(t, s, openAIReq([]string{"exec_command"}, oaMsg("developer", "be nice"), oaMsg("user", "<environment_context/>"), oaMsg("user", "hi")))
	if r.text != "Hello from the fake, a longer text" {
		t.Errorf("text = %q", r.text)
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"}
	if strings.Join(r.events[:4], ",") != strings.Join(want, ",") {
		t.Errorf("events = %v", r.events)
	}
	u, _ := r.response["usage"].(map[string]any)
	if num(u["input_tokens"]) != 1000 || num(get(u, "input_tokens_details", "cached_tokens")) != 900 || num(u["output_tokens"]) != 20 ||
		num(get(u, "output_tokens_details", "reasoning_tokens")) != 5 || num(u["total_tokens"]) != 1020 {
		t.Errorf("usage = %v", u)
	}
	if r.response["status"] != "completed" {
		t.Errorf("status = %v", r.response["status"])
	}
	out, _ := r.response["output"].([]any)
	if len(out) != 1 || get(out[0], "type") != "message" {
		t.Errorf("output = %v", out)
	}
}

func TestOpenAIFunctionCall(t *testing.T) {
	for _, tc := range []struct {
		tools []string
		name  string
		args  string
	}{
		{[]string{"exec_command", "write_stdin", "shell"}, "exec_command", `{"cmd":"echo hi"}`},
		{[]string{"shell_command"}, "shell_command", `{"command":"echo hi"}`},
		{[]string{"shell"}, "shell", `{"command":["bash","-lc","echo hi"]}`},
		{[]string{"web_search"}, "exec_command", `{"cmd":"echo hi"}`},
	} {
		s := start(t)
		r := sendOpenAI(t, s, openAIReq(tc.tools, oaMsg("user", "TOOL_BASH")))
		if len(r.calls) != 1 || r.calls[0]["name"] != tc.name || r.calls[0]["arguments"] != tc.args || r.args != tc.args {
			t.Errorf("tools %v: calls %v args %q", tc.tools, r.calls, r.args)
			continue
		}
		callID, _ := r.calls[0]["call_id"].(string)
		if !strings.HasPrefix(callID, "call_") {
			t.Errorf("call_id = %q", callID)
		}
		// Send the output back: "Done.".
		r2 := sendOpenAI(t, s, openAIReq(tc.tools, oaMsg("user", "TOOL_BASH"),
			map[string]any{"type": "function_call", "name": tc.name, "arguments": tc.args, "call_id": callID},
			map[string]any{"type": "function_call_output", "call_id": callID, "output": "hi\n"}))
		if r2.text != "Done." || len(r2.calls) != 0 {
			t.Errorf("after output: %q %v", r2.text, r2.calls)
		}
		last, _ := s.LastModelRequest()
		if !last.EndsWithToolResult() || last.AllToolResults()[0].Content != "hi\n" || last.AllToolUses()[0].Name != tc.name || string(last.AllToolUses()[0].Input) != tc.args {
			t.Errorf("parsed items: %+v", last.Messages)
		}
		if last.LastUserText() != "TOOL_BASH" || last.Header.Get("Authorization") != "REDACTED" || last.API != APIOpenAI {
			t.Errorf("last user text %q, auth %q", last.LastUserText(), last.Header.Get("Authorization"))
		}
	}
}

func TestOpenAIReadAndRawCall(t *testing.T) {
	s := start(t)
	s.Enqueue(Read("/tmp/a b.txt"), Text("x"), CallTool("update_plan", map[string]any{"plan": []any{}}))
	r := sendOpenAI(t, s, openAIReq([]string{"exec_command"}, oaMsg("user", "go")))
	if len(r.calls) != 1 || r.calls[0]["arguments"] != `{"cmd":"cat '/tmp/a b.txt'"}` {
		t.Errorf("read call = %v", r.calls)
	}
	sendOpenAI(t, s, openAIReq(execTools, oaMsg("user", "go"))) // the Done. follow-up
	sendOpenAI(t, s, openAIReq(execTools, oaMsg("user", "go"))) // "x"
	r = sendOpenAI(t, s, openAIReq(execTools, oaMsg("user", "go")))
	if len(r.calls) != 1 || r.calls[0]["name"] != "update_plan" || r.calls[0]["arguments"] != `{"plan":[]}` {
		t.Errorf("raw call = %v", r.calls)
	}
}

func TestOpenAIErrors(t *testing.T) {
	s := start(t)
	cases := []struct {
		reply  Reply
		status int
		code   string
	}{
		{ContextLengthExceeded(), 400, "context_length_exceeded"},
		{PromptTooLong(1, 2), 400, "context_length_exceeded"},
		{ServerError(), 500, "server_error"},
		{Overloaded(), 529, "server_is_overloaded"},
	}
	for _, c := range cases {
		s.Enqueue(c.reply)
		resp := post(t, s.URL()+"/v1/responses", nil, openAIReq(execTools, oaMsg("user", "hi")))
		var e struct {
			Error struct{ Message, Type, Code string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != c.status || e.Error.Code != c.code || e.Error.Message == "" {
			t.Errorf("%s: %d %+v", c.reply.Describe(), resp.StatusCode, e)
		}
	}
	resp := post(t, s.URL()+"/v1/responses", nil, openAIReq(execTools, oaMsg("user", "TOO_LONG")))
	if resp.StatusCode != 400 {
		t.Errorf("TOO_LONG: %d", resp.StatusCode)
	}
}

func TestOpenAINonStreamingAndStringInput(t *testing.T) {
	s := start(t)
	resp := post(t, s.URL()+"/v1/responses", nil, map[string]any{"model": "m", "input": "TOOL_BASH", "tools": []any{map[string]any{"type": "function", "name": "shell"}}})
	var out struct {
		Status string
		Output []map[string]any
		Usage  map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "completed" || len(out.Output) != 2 || out.Output[1]["type"] != "function_call" || out.Usage == nil {
		t.Errorf("response = %+v", out)
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := start(t)
	s.SetLogger(nil)
	const n = 20
	for i := 0; i < n; i++ {
		s.Enqueue(Text(fmt.Sprintf("r%d", i)))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b, _ := json.Marshal(claudeReq(userMsg("x")))
			resp, err := http.Post(s.URL()+"/v1/messages", "application/json", bytes.NewReader(b))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			mu.Lock()
			for _, l := range strings.Split(string(body), "\n") {
				if strings.Contains(l, "text_delta") {
					var d map[string]any
					_ = json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &d)
					seen[get(d, "delta", "text").(string)] = true
				}
			}
			mu.Unlock()
			_ = s.Requests()
		}(i)
	}
	wg.Wait()
	if len(seen) != n || s.Pending() != 0 || len(s.Requests()) != n {
		t.Errorf("seen %d distinct replies, pending %d, recorded %d", len(seen), s.Pending(), len(s.Requests()))
	}
	seqs := map[int]bool{}
	for _, r := range s.Requests() {
		seqs[r.Seq] = true
	}
	if len(seqs) != n {
		t.Errorf("sequence numbers not unique: %v", seqs)
	}
}

func TestOpenAISideRequests(t *testing.T) {
	s := start(t)
	s.Enqueue(Text("main"))
	// The Codex TUI's thread-title request: no tools, a JSON schema.
	title := map[string]any{"model": "fake-model", "stream": true, "tools": []any{}, "input": []any{oaMsg("user", "Generate a concise title")},
		"text": map[string]any{"format": map[string]any{"type": "json_schema", "name": "codex_output_schema", "strict": true,
			"schema": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}}
	r := sendOpenAI(t, s, title)
	var got struct{ Title string }
	if err := json.Unmarshal([]byte(r.text), &got); err != nil || got.Title == "" {
		t.Errorf("title reply %q: %v", r.text, err)
	}
	r = sendOpenAI(t, s, map[string]any{"model": "fake-model", "stream": true, "input": []any{oaMsg("user", "x")}})
	if r.text != SideText {
		t.Errorf("side text = %q", r.text)
	}
	if s.Pending() != 1 {
		t.Fatalf("side requests consumed the queue")
	}
	if r := sendOpenAI(t, s, openAIReq(execTools, oaMsg("user", "x"))); r.text != "main" {
		t.Errorf("main = %q", r.text)
	}
	reqs := s.Requests()
	if !reqs[0].Side || !reqs[1].Side || reqs[2].Side || len(reqs[0].OutputSchema) == 0 {
		t.Errorf("side flags wrong: %+v", reqs)
	}
}

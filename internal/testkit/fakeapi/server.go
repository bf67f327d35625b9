// Package fakeapi is an offline fake of the Anthropic Messages API and the
// OpenAI Responses API, good enough to drive the real Claude Code and Codex
// CLIs in end-to-end tests.
//
// Start a Server, point the CLI at URL() (Claude: ANTHROPIC_BASE_URL=URL();
// Codex: a model provider with base_url = URL()+"/v1" and wire_api =
// "responses"), script the replies with Enqueue (or SetResponder), and read
// back what the CLI sent with Requests.
//
// When nothing is scripted the default rules apply, on the last user text of
// the request: after a tool result the reply is "Done."; "TOOL_BASH" gives a
// Bash call of `echo hi`; "TOOL_READ:<path>" a Read of <path>; "TOO_LONG" a
// 400 prompt too long (context_length_exceeded on OpenAI); anything else
// "ok".
//
// Side requests that the CLIs make besides the conversation (titles, topic
// detection, subagent warm-ups, ...: see IsSideRequest) never consume the
// queue; they get SideText (or a small JSON answer when the request asks
// for one) and are recorded with Side set.
package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// API tells which API a request was addressed to.
type API string

const (
	APIAnthropic API = "anthropic"
	APIOpenAI    API = "openai"
	APIOther     API = ""
)

// SideText is the text the fake answers to side requests.
const SideText = "Fake side reply"

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	srv *http.Server
	ln  net.Listener
	url string

	mu        sync.Mutex
	queue     []Reply
	responder func(Request) (Reply, bool)
	side      func(Request) bool
	usage     Usage
	requests  []Request
	seq       int
	ids       int
	logf      func(format string, args ...any)
	delay     time.Duration
}

// Start starts a fake on 127.0.0.1 with a random port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakeapi: listen: %w", err)
	}
	s := &Server{ln: ln, url: "http://" + ln.Addr().String(), usage: DefaultUsage}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the base URL, e.g. http://127.0.0.1:41234 (no trailing slash, no
// /v1).
func (s *Server) URL() string { return s.url }

// Close stops the server; streams in progress are cut. The logger is
// dropped first, so that nothing logs after a test has ended.
func (s *Server) Close() {
	s.SetLogger(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

// SetLogger sets a function that gets one line per request served and every
// unknown path (e.g. t.Logf). Nil turns logging off.
func (s *Server) SetLogger(logf func(format string, args ...any)) {
	s.mu.Lock()
	s.logf = logf
	s.mu.Unlock()
}

// SetDefaultUsage sets the usage of replies that do not carry their own.
func (s *Server) SetDefaultUsage(u Usage) {
	s.mu.Lock()
	s.usage = u
	s.mu.Unlock()
}

// SetStreamDelay makes the fake sleep d between SSE events (to simulate a
// slow model, e.g. for interrupt tests). Zero (the default) means no delay.
func (s *Server) SetStreamDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Enqueue appends replies to the queue. Each main (non-side) model request
// takes the first queued reply; when the queue is empty the responder (see
// SetResponder) and then the default rules answer.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	s.queue = append(s.queue, replies...)
	s.mu.Unlock()
}

// Pending is the number of replies still queued.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetResponder sets a function consulted for main requests when the queue
// is empty; if it returns false the default rules answer. The Request it
// gets has the parsed view filled in (Headers, Body, Messages, ...). Nil
// removes it.
func (s *Server) SetResponder(fn func(Request) (Reply, bool)) {
	s.mu.Lock()
	s.responder = fn
	s.mu.Unlock()
}

// SetSideClassifier replaces IsSideRequest as the test for side requests
// (nil restores it). Side requests are answered with SideText without
// consuming the queue.
func (s *Server) SetSideClassifier(fn func(Request) bool) {
	s.mu.Lock()
	s.side = fn
	s.mu.Unlock()
}

func (s *Server) isSide(req Request) bool {
	s.mu.Lock()
	fn := s.side
	s.mu.Unlock()
	if fn == nil {
		fn = IsSideRequest
	}
	return fn(req)
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

// ModelRequests returns the recorded model requests (POST /v1/messages and
// /v1/responses) that are not side requests.
func (s *Server) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsModelCall() && !r.Side {
			out = append(out, r)
		}
	}
	return out
}

// LastModelRequest returns the last main model request, and false if there
// is none.
func (s *Server) LastModelRequest() (Request, bool) {
	reqs := s.ModelRequests()
	if len(reqs) == 0 {
		return Request{}, false
	}
	return reqs[len(reqs)-1], true
}

// Reset forgets the recorded requests and empties the queue; the responder,
// default usage, logger and stream delay stay.
func (s *Server) Reset() {
	s.mu.Lock()
	s.requests = nil
	s.queue = nil
	s.mu.Unlock()
}

func (s *Server) log(format string, args ...any) {
	s.mu.Lock()
	logf := s.logf
	s.mu.Unlock()
	if logf != nil {
		logf("fakeapi: "+format, args...)
	}
}

func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return s.ids
}

// record stores req and returns its index.
func (s *Server) record(req *Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	req.Seq = s.seq
	s.requests = append(s.requests, *req)
	return len(s.requests) - 1
}

// setOutcome fills in what was answered to the request at index i.
func (s *Server) setOutcome(i int, status int, served string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < len(s.requests) {
		s.requests[i].Status = status
		s.requests[i].Served = served
	}
}

var sensitiveHeaders = map[string]bool{
	"Authorization":       true,
	"X-Api-Key":           true,
	"Api-Key":             true,
	"Cookie":              true,
	"Proxy-Authorization": true,
	"Openai-Api-Key":      true,
	"Anthropic-Api-Key":   true,
}

func redact(h http.Header) http.Header {
	out := h.Clone()
	for k := range out {
		ck := http.CanonicalHeaderKey(k)
		if sensitiveHeaders[ck] || strings.Contains(strings.ToLower(ck), "token") || strings.Contains(strings.ToLower(ck), "secret") {
			out[k] = []string{"REDACTED"}
		}
	}
	return out
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{
		Time:   time.Now(),
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.RawQuery,
		Header: redact(r.Header),
		Body:   body,
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/v1/messages" && r.Method == http.MethodPost:
		req.API = APIAnthropic
		req.parseAnthropic()
		req.Side = s.isSide(req)
		i := s.record(&req)
		s.serveAnthropic(w, i, req)
	case path == "/v1/messages/count_tokens" && r.Method == http.MethodPost:
		req.API = APIAnthropic
		req.parseAnthropic()
		req.Side = true
		i := s.record(&req)
		n := len(body)/4 + 1
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": n})
		s.setOutcome(i, http.StatusOK, fmt.Sprintf("count_tokens:%d", n))
	case path == "/v1/responses" && r.Method == http.MethodPost:
		req.API = APIOpenAI
		req.parseOpenAI()
		req.Side = s.isSide(req)
		i := s.record(&req)
		s.serveOpenAI(w, i, req)
	case path == "/api/hello":
		i := s.record(&req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, `{"message":"hello"}`)
		}
		s.setOutcome(i, http.StatusOK, "hello")
	case (path == "/v1/models" || path == "/models") && r.Method == http.MethodGet:
		i := s.record(&req)
		s.serveModels(w, r)
		s.setOutcome(i, http.StatusOK, "models")
	default:
		i := s.record(&req)
		s.log("unknown path %s %s (body %d bytes)", r.Method, r.URL.RequestURI(), len(body))
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusNotFound)
		} else {
			writeJSON(w, http.StatusNotFound, map[string]any{
				"type":  "error",
				"error": map[string]any{"type": "not_found_error", "message": "fakeapi: no such endpoint: " + r.Method + " " + r.URL.Path},
			})
		}
		s.setOutcome(i, http.StatusNotFound, "unknown")
	}
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	// Anthropic clients send anthropic-version; everything else gets the
	// OpenAI shape (Codex's /models answer is a superset of both).
	if r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "" {
		writeJSON(w, http.StatusOK, map[string]any{
			"data": []any{
				map[string]any{"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5", "created_at": "2025-09-29T00:00:00Z"},
				map[string]any{"type": "model", "id": "claude-opus-4-1", "display_name": "Claude Opus 4.1", "created_at": "2025-08-05T00:00:00Z"},
			},
			"has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-opus-4-1",
		})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   []any{map[string]any{"id": "fake-model", "object": "model", "created": 1700000000, "owned_by": "fakeapi"}},
		"models": []any{},
	})
}

// choose picks the reply for a main model request.
func (s *Server) choose(req Request) (Reply, string) {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r, "queue"
	}
	fn := s.responder
	s.mu.Unlock()
	if fn != nil {
		if r, ok := fn(req); ok {
			return r, "responder"
		}
	}
	return DefaultReply(req), "default"
}

// pushFront queues r to be served next (the follow-up of a tool call).
func (s *Server) pushFront(r Reply) {
	s.mu.Lock()
	s.queue = append([]Reply{r}, s.queue...)
	s.mu.Unlock()
}

var readRe = regexp.MustCompile(`TOOL_READ:(\S+)`)

// DefaultReply is the rule-based answer used when nothing is scripted.
func DefaultReply(req Request) Reply {
	if req.EndsWithToolResult() {
		return Text("Done.")
	}
	text := req.LastUserText()
	switch {
	case strings.Contains(text, "TOO_LONG"):
		return PromptTooLong(250000, 200000)
	case strings.Contains(text, "TOOL_BASH"):
		return Bash("echo hi").WithText("I'll run a command.")
	case readRe.MatchString(text):
		p := readRe.FindStringSubmatch(text)[1]
		return Read(strings.TrimRight(p, ".,;:)\"'`")).WithText("I'll read the file.")
	default:
		return Text("ok")
	}
}

// IsSideRequest is the default classifier: it tells whether a model request
// is a side request of the CLI rather than a conversation turn. Side
// requests are those offering no tools (Claude Code's title, topic and
// summary generation and quota probes; the Codex TUI's thread-title
// request) and the subagent "Warmup" requests Claude Code 2.0.x sends at
// start-up (a single user message "Warmup").
func IsSideRequest(req Request) bool {
	if !req.IsModelCall() {
		return false
	}
	if len(req.Tools) == 0 {
		return true
	}
	if req.API == APIAnthropic && len(req.Messages) == 1 && req.Messages[0].Role == "user" && strings.TrimSpace(req.Messages[0].Text) == "Warmup" {
		return true
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sseWriter writes server-sent events, flushing after each one.
type sseWriter struct {
	w     io.Writer
	f     http.Flusher
	delay time.Duration
	err   error
}

func (e *sseWriter) event(name string, data any) {
	if e.err != nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		e.err = err
		return
	}
	var buf bytes.Buffer
	if name != "" {
		fmt.Fprintf(&buf, "event: %s\n", name)
	}
	fmt.Fprintf(&buf, "data: %s\n\n", b)
	if _, err := e.w.Write(buf.Bytes()); err != nil {
		e.err = err
		return
	}
	if e.f != nil {
		e.f.Flush()
	}
	if e.delay > 0 {
		time.Sleep(e.delay)
	}
}

func newSSE(w http.ResponseWriter, delay time.Duration) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	if f != nil {
		f.Flush()
	}
	return &sseWriter{w: w, f: f, delay: delay}
}

// chunks splits s into pieces of about n bytes (on rune boundaries) so the
// stream has more than one delta.
func chunks(s string, n int) []string {
	if s == "" {
		return nil
	}
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

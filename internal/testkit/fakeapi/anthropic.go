package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

type anthropicBlock struct {
	typ   string // text | tool_use
	text  string
	id    string
	name  string
	input json.RawMessage
}

func anthropicUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens,
		"cache_creation_input_tokens": u.CacheCreationInputTokens,
		"cache_read_input_tokens":     u.CacheReadInputTokens,
		"output_tokens":               u.OutputTokens,
		"service_tier":                "standard",
	}
}

// anthropicTool maps a tool call to the Anthropic tool name and input.
func anthropicTool(tc *ToolCall) (string, json.RawMessage) {
	switch tc.Kind {
	case "bash":
		return "Bash", json.RawMessage(mustJSON(map[string]any{"command": tc.Command, "description": "Run a command"}))
	case "read":
		return "Read", json.RawMessage(mustJSON(map[string]any{"file_path": tc.Path}))
	default:
		in := tc.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		return tc.Name, in
	}
}

func (s *Server) serveAnthropic(w http.ResponseWriter, i int, req Request) {
	id := s.nextID()
	w.Header().Set("request-id", fmt.Sprintf("req_fake_%06d", id))
	w.Header().Set("anthropic-organization-id", "00000000-0000-0000-0000-000000000000")

	var reply Reply
	var source string
	if req.Side {
		reply, source = sideReply(req), "side"
	} else {
		reply, source = s.choose(req)
	}
	s.mu.Lock()
	def, delay := s.usage, s.delay
	s.mu.Unlock()

	if reply.Error != "" {
		status := reply.status(APIAnthropic)
		if reply.Error == ErrOverloaded {
			w.Header().Set("x-should-retry", "false")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.errorBody(APIAnthropic))
		s.setOutcome(i, status, reply.Describe())
		s.log("#%d POST %s model=%s msgs=%d side=%v -> %d %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, status, reply.Describe(), source)
		return
	}

	var blocks []anthropicBlock
	if reply.Text != "" || reply.Tool == nil {
		blocks = append(blocks, anthropicBlock{typ: "text", text: reply.Text})
	}
	stop := "end_turn"
	if reply.Tool != nil {
		name, input := anthropicTool(reply.Tool)
		blocks = append(blocks, anthropicBlock{typ: "tool_use", id: fmt.Sprintf("toolu_fake%06d", id), name: name, input: input})
		stop = "tool_use"
		next := Text("Done.")
		if reply.Next != nil {
			next = *reply.Next
		}
		s.pushFront(next)
	}
	if reply.StopReason != "" {
		stop = reply.StopReason
	}
	usage := reply.usageOr(def)
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	msgID := fmt.Sprintf("msg_fake%06d", id)

	if !req.Stream {
		var content []any
		for _, b := range blocks {
			if b.typ == "text" {
				content = append(content, map[string]any{"type": "text", "text": b.text})
			} else {
				content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": anthropicUsage(usage),
		})
		s.setOutcome(i, http.StatusOK, reply.Describe())
		s.log("#%d POST %s model=%s msgs=%d side=%v -> 200 json %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, reply.Describe(), source)
		return
	}

	sse := newSSE(w, delay)
	sse.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": anthropicUsage(usage),
		},
	})
	sse.event("ping", map[string]any{"type": "ping"})
	for idx, b := range blocks {
		switch b.typ {
		case "text":
			sse.event("content_block_start", map[string]any{
				"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "text", "text": ""},
			})
			for _, c := range chunks(b.text, 16) {
				sse.event("content_block_delta", map[string]any{
					"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "text_delta", "text": c},
				})
			}
		case "tool_use":
			sse.event("content_block_start", map[string]any{
				"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}},
			})
			for _, c := range chunks(string(b.input), 24) {
				sse.event("content_block_delta", map[string]any{
					"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": c},
				})
			}
		}
		sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
	}
	sse.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": anthropicUsage(usage),
	})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
	s.setOutcome(i, http.StatusOK, reply.Describe())
	s.log("#%d POST %s model=%s msgs=%d side=%v -> 200 sse %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, reply.Describe(), source)
}

// sideReply answers a side request. Requests that prefill the assistant
// turn with "{" (Claude Code's topic detection) get the rest of a JSON
// object saying "no new topic"; everything else gets SideText.
func sideReply(req Request) Reply {
	if n := len(req.Messages); n > 0 {
		last := req.Messages[n-1]
		if last.Role == "assistant" && strings.HasPrefix(strings.TrimSpace(last.Text), "{") {
			return Text(`"isNewTopic": false, "title": null}`)
		}
	}
	return Text(SideText)
}

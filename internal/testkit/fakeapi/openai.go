package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

func openAIUsage(u Usage) map[string]any {
	in := u.ContextTokens()
	return map[string]any{
		"input_tokens":          in,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadInputTokens, "cache_write_tokens": u.CacheCreationInputTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningOutputTokens},
		"total_tokens":          in + u.OutputTokens,
	}
}

// shellTools are the Codex shell tools the fake knows how to call, in order
// of preference.
var shellTools = []string{"exec_command", "shell_command", "shell"}

// openAITool maps a tool call to a function name and its arguments string,
// using a shell tool the request offers.
func openAITool(tc *ToolCall, req Request) (string, string) {
	if tc.Kind == "raw" {
		in := string(tc.Input)
		if in == "" {
			in = "{}"
		}
		return tc.Name, in
	}
	cmd := tc.Command
	if tc.Kind == "read" {
		cmd = "cat " + shellQuote(tc.Path)
	}
	tool := "exec_command"
	for _, t := range shellTools {
		if req.HasTool(t) {
			tool = t
			break
		}
	}
	switch tool {
	case "shell_command":
		return tool, mustJSON(map[string]any{"command": cmd})
	case "shell":
		return tool, mustJSON(map[string]any{"command": []string{"bash", "-lc", cmd}})
	default:
		return tool, mustJSON(map[string]any{"cmd": cmd})
	}
}

func (s *Server) serveOpenAI(w http.ResponseWriter, i int, req Request) {
	id := s.nextID()
	w.Header().Set("x-request-id", fmt.Sprintf("req_fake_%06d", id))
	var reply Reply
	var source string
	if req.Side {
		reply, source = openAISideReply(req), "side"
	} else {
		reply, source = s.choose(req)
	}
	s.mu.Lock()
	def, delay := s.usage, s.delay
	s.mu.Unlock()

	if reply.Error != "" {
		status := reply.status(APIOpenAI)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.errorBody(APIOpenAI))
		s.setOutcome(i, status, reply.Describe())
		s.log("#%d POST %s model=%s items=%d side=%v -> %d %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, status, reply.Describe(), source)
		return
	}

	respID := fmt.Sprintf("resp_fake%06d", id)
	model := req.Model
	if model == "" {
		model = "fake-model"
	}
	var output []map[string]any
	if reply.Text != "" || reply.Tool == nil {
		output = append(output, map[string]any{
			"id": fmt.Sprintf("msg_fake%06d", id), "type": "message", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": reply.Text, "annotations": []any{}}},
		})
	}
	var toolDesc string
	if reply.Tool != nil {
		name, args := openAITool(reply.Tool, req)
		toolDesc = name + " " + args
		output = append(output, map[string]any{
			"id": fmt.Sprintf("fc_fake%06d", id), "type": "function_call", "status": "completed",
			"call_id": fmt.Sprintf("call_fake%06d", id), "name": name, "arguments": args,
		})
		next := Text("Done.")
		if reply.Next != nil {
			next = *reply.Next
		}
		s.pushFront(next)
	}
	usage := reply.usageOr(def)
	response := func(status string, out []map[string]any, withUsage bool) map[string]any {
		if out == nil {
			out = []map[string]any{}
		}
		r := map[string]any{
			"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": status,
			"model": model, "output": out, "parallel_tool_calls": false, "tool_choice": "auto", "tools": []any{},
			"error": nil, "incomplete_details": nil, "usage": nil,
		}
		if withUsage {
			r["usage"] = openAIUsage(usage)
		}
		return r
	}

	if !req.Stream {
		writeJSON(w, http.StatusOK, response("completed", output, true))
		s.setOutcome(i, http.StatusOK, reply.Describe())
		s.log("#%d POST %s model=%s items=%d side=%v -> 200 json %s %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, reply.Describe(), toolDesc, source)
		return
	}

	sse := newSSE(w, delay)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		sse.event(typ, fields)
	}
	ev("response.created", map[string]any{"response": response("in_progress", nil, false)})
	ev("response.in_progress", map[string]any{"response": response("in_progress", nil, false)})
	for idx, item := range output {
		itemID := item["id"]
		switch item["type"] {
		case "message":
			text := reply.Text
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
				"id": itemID, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{},
			}})
			ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": idx, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			for _, c := range chunks(text, 16) {
				ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": idx, "content_index": 0, "delta": c})
			}
			ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": idx, "content_index": 0, "text": text})
			ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": idx, "content_index": 0,
				"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
		case "function_call":
			args, _ := item["arguments"].(string)
			ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{
				"id": itemID, "type": "function_call", "status": "in_progress",
				"call_id": item["call_id"], "name": item["name"], "arguments": "",
			}})
			for _, c := range chunks(args, 24) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": idx, "delta": c})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": itemID, "output_index": idx, "arguments": args})
		}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
	}
	ev("response.completed", map[string]any{"response": response("completed", output, true)})
	s.setOutcome(i, http.StatusOK, reply.Describe())
	s.log("#%d POST %s model=%s items=%d side=%v -> 200 sse %s %s (%s)", req.Seq, req.Path, req.Model, len(req.Messages), req.Side, reply.Describe(), toolDesc, source)
}

// openAISideReply answers a side request: JSON matching the requested
// output schema when there is one (the Codex TUI asks for {"title": ...}),
// else SideText.
func openAISideReply(req Request) Reply {
	if len(req.OutputSchema) == 0 {
		return Text(SideText)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(req.OutputSchema, &schema)
	if _, ok := schema.Properties["title"]; ok {
		return Text(`{"title":"Fake title"}`)
	}
	return Text("{}")
}

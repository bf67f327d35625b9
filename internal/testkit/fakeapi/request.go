package fakeapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one recorded HTTP request, with a parsed view of model calls.
type Request struct {
	// Seq numbers the requests from 1 (it keeps counting across Reset).
	Seq    int
	Time   time.Time
	Method string
	Path   string
	Query  string
	// Header is a copy with credentials (authorization, x-api-key, cookies,
	// anything named *token* or *secret*) replaced by "REDACTED".
	Header http.Header
	Body   []byte

	// API is APIAnthropic for /v1/messages*, APIOpenAI for /v1/responses.
	API API
	// Side marks Claude Code's side requests (see IsSideRequest); they do
	// not consume the queue.
	Side bool
	// Status is the HTTP status answered; Served describes the reply (see
	// Reply.Describe; "side", "hello", "unknown", ...).
	Status int
	Served string

	// Parsed view of a model call (zero for other requests).
	Model     string
	Stream    bool
	MaxTokens int
	// System is the Anthropic system prompt or the OpenAI instructions,
	// text joined with "\n".
	System string
	// Tools are the names of the tools offered.
	Tools []string
	// Messages are the Anthropic messages, or the OpenAI input items.
	Messages []Message
	// OutputSchema is the JSON schema of an OpenAI structured-output
	// request (text.format.schema), if any.
	OutputSchema json.RawMessage
}

// Message is one message (Anthropic) or input item (OpenAI) of a request.
type Message struct {
	// Role is user/assistant (Anthropic), or the item's role for OpenAI
	// messages (user/assistant/developer/system); "assistant" for an
	// OpenAI function_call and "tool" for a function_call_output.
	Role string
	// Type is "message" for Anthropic messages, else the OpenAI item type
	// (message, function_call, function_call_output, reasoning, ...).
	Type string
	// Text is every text block/part joined with "\n" (tool results are not
	// included).
	Text        string
	ToolUses    []ToolUse
	ToolResults []ToolResult
	Raw         json.RawMessage
}

// ToolUse is a tool call found in the history.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult is a tool result found in the history.
type ToolResult struct {
	ID      string
	Content string
	IsError bool
}

// IsModelCall tells whether the request is a model call (messages or
// responses, not count_tokens).
func (r Request) IsModelCall() bool {
	p := strings.TrimSuffix(r.Path, "/")
	return r.Method == http.MethodPost && (p == "/v1/messages" || p == "/v1/responses")
}

// LastUserText is the text of the last user message (for OpenAI: the last
// user message item), or "".
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "user" && m.Type == "message" {
			if r.API == APIOpenAI || strings.TrimSpace(m.Text) != "" || len(m.ToolResults) > 0 {
				return m.Text
			}
		}
	}
	return ""
}

// UserTexts returns the text of every user message in order (OpenAI:
// every user message item, including the harness's environment context).
func (r Request) UserTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" && m.Type == "message" && m.Text != "" {
			out = append(out, m.Text)
		}
	}
	return out
}

// EndsWithToolResult tells whether the last message carries tool results,
// i.e. the request continues a turn after a tool call.
func (r Request) EndsWithToolResult() bool {
	if len(r.Messages) == 0 {
		return false
	}
	return len(r.Messages[len(r.Messages)-1].ToolResults) > 0
}

// AllToolUses returns every tool call in the history.
func (r Request) AllToolUses() []ToolUse {
	var out []ToolUse
	for _, m := range r.Messages {
		out = append(out, m.ToolUses...)
	}
	return out
}

// AllToolResults returns every tool result in the history.
func (r Request) AllToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.Messages {
		out = append(out, m.ToolResults...)
	}
	return out
}

// HasTool tells whether a tool of that name is offered.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// contentText extracts the text of an Anthropic/OpenAI content value: a
// string, or an array of blocks with "text".
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		var typ string
		_ = json.Unmarshal(b["type"], &typ)
		switch typ {
		case "text", "input_text", "output_text", "":
			var t string
			if json.Unmarshal(b["text"], &t) == nil && t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

func (r *Request) parseAnthropic() {
	var body struct {
		Model     string            `json:"model"`
		Stream    bool              `json:"stream"`
		MaxTokens int               `json:"max_tokens"`
		System    json.RawMessage   `json:"system"`
		Tools     []json.RawMessage `json:"tools"`
		Messages  []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return
	}
	r.Model, r.Stream, r.MaxTokens = body.Model, body.Stream, body.MaxTokens
	r.System = contentText(body.System)
	r.Tools = toolNames(body.Tools)
	for _, raw := range body.Messages {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		msg := Message{Role: m.Role, Type: "message", Raw: raw, Text: contentText(m.Content)}
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				switch b.Type {
				case "tool_use":
					msg.ToolUses = append(msg.ToolUses, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input})
				case "tool_result":
					msg.ToolResults = append(msg.ToolResults, ToolResult{ID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError})
				}
			}
		}
		r.Messages = append(r.Messages, msg)
	}
}

func (r *Request) parseOpenAI() {
	var body struct {
		Model           string            `json:"model"`
		Stream          bool              `json:"stream"`
		MaxOutputTokens int               `json:"max_output_tokens"`
		Instructions    json.RawMessage   `json:"instructions"`
		Tools           []json.RawMessage `json:"tools"`
		Input           json.RawMessage   `json:"input"`
		Text            struct {
			Format struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"format"`
		} `json:"text"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return
	}
	r.Model, r.Stream, r.MaxTokens = body.Model, body.Stream, body.MaxOutputTokens
	r.OutputSchema = body.Text.Format.Schema
	r.System = contentText(body.Instructions)
	r.Tools = toolNames(body.Tools)
	var s string
	if json.Unmarshal(body.Input, &s) == nil {
		r.Messages = []Message{{Role: "user", Type: "message", Text: s, Raw: body.Input}}
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(body.Input, &items) != nil {
		return
	}
	for _, raw := range items {
		var it struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			Name      string          `json:"name"`
			CallID    string          `json:"call_id"`
			Arguments string          `json:"arguments"`
			Input     string          `json:"input"`
			Output    json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		msg := Message{Role: it.Role, Type: it.Type, Raw: raw}
		switch it.Type {
		case "message":
			msg.Text = contentText(it.Content)
		case "function_call", "custom_tool_call", "local_shell_call":
			msg.Role = "assistant"
			args := it.Arguments
			if args == "" {
				args = it.Input
			}
			var in json.RawMessage
			if json.Valid([]byte(args)) && args != "" {
				in = json.RawMessage(args)
			} else {
				in, _ = json.Marshal(args)
			}
			msg.ToolUses = []ToolUse{{ID: it.CallID, Name: it.Name, Input: in}}
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			msg.Role = "tool"
			out := contentText(it.Output)
			if out == "" {
				var o struct {
					Content string `json:"content"`
				}
				if json.Unmarshal(it.Output, &o) == nil {
					out = o.Content
				}
			}
			msg.ToolResults = []ToolResult{{ID: it.CallID, Content: out}}
		}
		r.Messages = append(r.Messages, msg)
	}
}

func toolNames(tools []json.RawMessage) []string {
	var out []string
	for _, raw := range tools {
		var t struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		switch {
		case t.Name != "":
			out = append(out, t.Name)
		case t.Function.Name != "":
			out = append(out, t.Function.Name)
		case t.Type != "":
			out = append(out, t.Type)
		}
	}
	return out
}

package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Usage is the token accounting reported with a reply.
//
// On the Anthropic Messages API the four numbers are sent as they are
// (input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
// output_tokens), in message_start and again in message_delta, so
// "context in use" = InputTokens + CacheCreationInputTokens +
// CacheReadInputTokens.
//
// On the OpenAI Responses API input_tokens already includes cached tokens, so
// the fake sends input_tokens = InputTokens + CacheCreationInputTokens +
// CacheReadInputTokens, input_tokens_details.cached_tokens =
// CacheReadInputTokens, input_tokens_details.cache_write_tokens =
// CacheCreationInputTokens (Codex records it as cache_write_input_tokens),
// output_tokens = OutputTokens (of which
// ReasoningOutputTokens are reasoning) and total_tokens = input + output. The
// same Usage therefore describes the same context size on both APIs.
type Usage struct {
	InputTokens              int
	CacheCreationInputTokens int
	CacheReadInputTokens     int
	OutputTokens             int
	// ReasoningOutputTokens is only reported by the OpenAI API
	// (output_tokens_details.reasoning_tokens).
	ReasoningOutputTokens int
}

// ContextTokens is InputTokens + CacheCreationInputTokens + CacheReadInputTokens.
func (u Usage) ContextTokens() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// DefaultUsage is used for replies that do not set their own Usage (unless
// the server's default was changed with SetDefaultUsage).
var DefaultUsage = Usage{InputTokens: 100, CacheReadInputTokens: 1000, OutputTokens: 10}

// ErrorKind names the kinds of failure a Reply can simulate.
type ErrorKind string

const (
	// ErrPromptTooLong: Anthropic 400 invalid_request_error "prompt is too
	// long: N tokens > M maximum"; on the OpenAI API the same as
	// ErrContextLengthExceeded.
	ErrPromptTooLong ErrorKind = "prompt_too_long"
	// ErrContextLengthExceeded: OpenAI 400 with error.code
	// "context_length_exceeded"; on the Anthropic API the same as
	// ErrPromptTooLong.
	ErrContextLengthExceeded ErrorKind = "context_length_exceeded"
	// ErrOverloaded: HTTP 529 overloaded_error.
	ErrOverloaded ErrorKind = "overloaded"
	// ErrServer: HTTP 500 api_error / server_error.
	ErrServer ErrorKind = "server_error"
	// ErrCustom: Status and Body are sent as they are.
	ErrCustom ErrorKind = "custom"
)

// ToolCall describes a tool call the fake model makes. Use Bash, Read or
// CallTool to build one.
type ToolCall struct {
	// Kind is "bash", "read" or "raw".
	Kind string
	// Command is the shell command of a "bash" call.
	Command string
	// Path is the file of a "read" call.
	Path string
	// Name and Input are used as they are by a "raw" call (Input is a JSON
	// object; on the OpenAI API it becomes the function call's arguments).
	Name  string
	Input json.RawMessage
}

// Reply is one scripted answer of the fake model. The zero value is an empty
// text reply; build replies with Text, Bash, Read, CallTool, PromptTooLong,
// ContextLengthExceeded, Overloaded, ServerError or Error and adjust them
// with the With* methods.
type Reply struct {
	// Text is the assistant text. For a tool call it is an optional text
	// block sent before the call.
	Text string
	// Tool makes the reply a tool call (stop_reason tool_use).
	Tool *ToolCall
	// Next is served (it is put at the front of the queue) to the request
	// that follows a tool call, i.e. the one that carries the tool's
	// result. Nil means Text("Done.").
	Next *Reply
	// Error, when set, makes the reply an HTTP error.
	Error ErrorKind
	// Tokens and Max are the numbers in the prompt-too-long message.
	Tokens, Max int
	// Status and Body are the HTTP status and raw body of an ErrCustom
	// error; for the other kinds they override the generated ones when set.
	Status int
	Body   string
	// Usage overrides the server's default usage for this reply.
	Usage *Usage
	// StopReason overrides the Anthropic stop_reason (default end_turn,
	// or tool_use for tool calls).
	StopReason string
}

// Text is a plain text reply.
func Text(s string) Reply { return Reply{Text: s} }

// Bash is a tool call running command: on the Anthropic API a Bash tool_use
// ({"command": ..., "description": ...}); on the OpenAI API a function call
// of the shell tool the client offers (exec_command {"cmd": ...},
// shell_command {"command": ...} or shell {"command": ["bash","-lc", ...]}).
// The request that carries the result gets Text("Done.") unless Then says
// otherwise.
func Bash(command string) Reply {
	return Reply{Tool: &ToolCall{Kind: "bash", Command: command}}
}

// Read is a tool call reading path: on the Anthropic API a Read tool_use
// ({"file_path": path}); on the OpenAI API (Codex has no Read tool) a shell
// call of `cat <path>`.
func Read(path string) Reply {
	return Reply{Tool: &ToolCall{Kind: "read", Path: path}}
}

// CallTool is a call of an arbitrary tool with a JSON object as input.
func CallTool(name string, input any) Reply {
	b, err := json.Marshal(input)
	if err != nil {
		panic(fmt.Sprintf("fakeapi.CallTool: %v", err))
	}
	return Reply{Tool: &ToolCall{Kind: "raw", Name: name, Input: b}}
}

// PromptTooLong is the Anthropic 400 "prompt is too long: tokens > max
// maximum" (context_length_exceeded on the OpenAI API).
func PromptTooLong(tokens, max int) Reply {
	return Reply{Error: ErrPromptTooLong, Tokens: tokens, Max: max}
}

// ContextLengthExceeded is the OpenAI 400 context_length_exceeded error
// (prompt too long on the Anthropic API).
func ContextLengthExceeded() Reply {
	return Reply{Error: ErrContextLengthExceeded}
}

// Overloaded is an HTTP 529 overloaded error.
func Overloaded() Reply { return Reply{Error: ErrOverloaded} }

// ServerError is an HTTP 500 internal server error.
func ServerError() Reply { return Reply{Error: ErrServer} }

// Error is an HTTP error with a raw body, sent as it is.
func Error(status int, body string) Reply {
	return Reply{Error: ErrCustom, Status: status, Body: body}
}

// WithUsage returns r with its usage set.
func (r Reply) WithUsage(u Usage) Reply {
	r.Usage = &u
	return r
}

// WithText returns r with its text set (a preamble for tool calls).
func (r Reply) WithText(s string) Reply {
	r.Text = s
	return r
}

// Then returns r with next as the reply to the request carrying the tool
// result (only meaningful for tool calls).
func (r Reply) Then(next Reply) Reply {
	r.Next = &next
	return r
}

// Describe is a short human-readable description, as recorded in
// Request.Served.
func (r Reply) Describe() string {
	switch {
	case r.Error != "":
		return fmt.Sprintf("error:%s:%d", r.Error, r.status(APIAnthropic))
	case r.Tool != nil:
		switch r.Tool.Kind {
		case "bash":
			return "tool:bash:" + r.Tool.Command
		case "read":
			return "tool:read:" + r.Tool.Path
		default:
			return "tool:" + r.Tool.Name
		}
	default:
		return "text:" + r.Text
	}
}

func (r Reply) usageOr(def Usage) Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return def
}

func (r Reply) status(api API) int {
	if r.Status != 0 {
		return r.Status
	}
	switch r.Error {
	case ErrPromptTooLong, ErrContextLengthExceeded:
		return http.StatusBadRequest
	case ErrOverloaded:
		return 529
	default:
		return http.StatusInternalServerError
	}
}

func (r Reply) errorBody(api API) string {
	if r.Body != "" {
		return r.Body
	}
	tokens, max := r.Tokens, r.Max
	if tokens == 0 {
		tokens = 210000
	}
	if max == 0 {
		max = 200000
	}
	if api == APIOpenAI {
		var typ, code, msg string
		switch r.Error {
		case ErrPromptTooLong, ErrContextLengthExceeded:
			typ, code = "invalid_request_error", "context_length_exceeded"
			msg = "Your input exceeds the context window of this model. Please adjust your input and try again."
		case ErrOverloaded:
			typ, code, msg = "server_error", "server_is_overloaded", "The server is overloaded. Please try again later."
		default:
			typ, code, msg = "server_error", "server_error", "The server had an error while processing your request."
		}
		return mustJSON(map[string]any{"error": map[string]any{
			"message": msg, "type": typ, "param": nil, "code": code,
		}})
	}
	var typ, msg string
	switch r.Error {
	case ErrPromptTooLong, ErrContextLengthExceeded:
		typ, msg = "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", tokens, max)
	case ErrOverloaded:
		typ, msg = "overloaded_error", "Overloaded"
	default:
		typ, msg = "api_error", "Internal server error"
	}
	return mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

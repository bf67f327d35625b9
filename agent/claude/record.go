package claude

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/jsonl"
)

// Rec holds the top-level fields of one transcript record, taken in a
// single pass: records can be megabytes (tool results), so each is scanned
// once rather than once per field.
type Rec struct {
	Type, Timestamp, Cwd, SessionID, Version, Entrypoint, GitBranch, Subtype string
	PromptSource, CustomTitle, AITitle, LastPrompt, Summary                  string
	HasBranch, HasPromptSource, Sidechain, Meta, CompactSummary, APIError    bool
	// ToolUseResult: the record carries a toolUseResult payload, which
	// only tool-result records do.
	ToolUseResult        bool
	Message, CompactMeta gjson.Result
}

// ParseRec parses one line with the envelope scanner. The result's
// strings alias js; clone what is kept.
func ParseRec(js string) (Rec, bool) {
	var r Rec
	str := func(v string) string {
		// Most values are plain strings: taken as they are, without
		// gjson's general parse (a twentieth of an index build's CPU).
		if len(v) >= 2 && v[0] == '"' && strings.IndexByte(v, '\\') < 0 {
			return v[1 : len(v)-1]
		}
		return gjson.Parse(v).Str
	}
	ok := jsonl.EachTop(js, func(k, raw string) bool {
		switch k {
		case KeyType:
			r.Type = str(raw)
		case KeyTimestamp:
			r.Timestamp = str(raw)
		case KeyCwd:
			r.Cwd = str(raw)
		case KeySessionID:
			r.SessionID = str(raw)
		case KeyVersion:
			r.Version = str(raw)
		case "entrypoint":
			r.Entrypoint = str(raw)
		case "gitBranch":
			r.GitBranch, r.HasBranch = str(raw), true
		case KeySubtype:
			r.Subtype = str(raw)
		case KeyPromptSource:
			r.PromptSource, r.HasPromptSource = str(raw), true
		case "customTitle":
			r.CustomTitle = str(raw)
		case "aiTitle":
			r.AITitle = str(raw)
		case "lastPrompt":
			r.LastPrompt = str(raw)
		case "summary":
			r.Summary = gjson.Parse(raw).String()
		case KeyIsSidechain:
			r.Sidechain = gjson.Parse(raw).Bool()
		case KeyIsMeta:
			r.Meta = gjson.Parse(raw).Bool()
		case KeyIsCompactSummary:
			r.CompactSummary = gjson.Parse(raw).Bool()
		case KeyIsAPIErrorMessage:
			r.APIError = gjson.Parse(raw).Bool()
		case KeyToolUseResult:
			r.ToolUseResult = true
		case KeyMessage:
			r.Message = gjson.Parse(raw)
		case KeyCompactMetadata:
			r.CompactMeta = gjson.Parse(raw)
		}
		return true
	})
	return r, ok
}

// IsCompactBoundary reports whether r is where context usage restarts.
func (r Rec) IsCompactBoundary() bool {
	return r.Type == TypeSystem && r.Subtype == SubtypeCompactBoundary
}

// PostTokens is the context a compact boundary left, from its metadata.
func (r Rec) PostTokens() int64 { return r.CompactMeta.Get("postTokens").Int() }

// MessageModelUsage takes model and usage out of an assistant message
// without decoding its content blocks.
func MessageModelUsage(msg gjson.Result) (model string, usage gjson.Result) {
	jsonl.EachTop(msg.Raw, func(k, raw string) bool {
		switch k {
		case "model":
			model = gjson.Parse(raw).Str
		case "usage":
			usage = gjson.Parse(raw)
		}
		return true
	})
	return model, usage
}

// MainChainUsage returns the model and usage of r when r is a main-chain
// assistant record whose usage is the session's context: not a sidechain,
// not an API error, not synthetic.
func (r Rec) MainChainUsage() (model string, usage gjson.Result, ok bool) {
	if r.Type != TypeAssistant || r.Sidechain || r.APIError {
		return "", gjson.Result{}, false
	}
	model, usage = MessageModelUsage(r.Message)
	if model == SyntheticModel || !usage.Exists() {
		return model, usage, false
	}
	return model, usage, true
}

// ContextTokens is the context a request used, from a usage object
// (a message's usage or the statusLine's current_usage): input + cache
// creation + cache read.
func ContextTokens(usage gjson.Result) int64 {
	return usage.Get("input_tokens").Int() + usage.Get("cache_creation_input_tokens").Int() + usage.Get("cache_read_input_tokens").Int()
}

// wrapperPrefixes mark user text Claude Code wrote, not the human.
var wrapperPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>",
	"<local-command-stderr>", "<local-command-caveat>", "<system-reminder>", "[Request interrupted",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>", "<user-memory-input>",
	"Caveat: The messages below were generated",
}

// IsHumanText reports whether s (a string content or a text block of a
// user record) could have been typed: not empty and not a wrapper.
func IsHumanText(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" {
		return false
	}
	for _, p := range wrapperPrefixes {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}

// HumanPromptSource reports whether a recorded promptSource is a human's
// (typed, or sent through the SDK).
func HumanPromptSource(v string) bool { return v == "typed" || v == "sdk" }

// HumanPrompt applies the rule for a prompt the human typed: promptSource
// typed/sdk where recorded; otherwise a string or text content that is not
// meta, not a sidechain, not a tool result, not a compact summary and not
// a wrapper. It returns the typed text.
func HumanPrompt(r Rec) (string, bool) {
	if r.Type != TypeUser || r.Sidechain || r.Meta || r.CompactSummary || r.ToolUseResult {
		return "", false
	}
	if r.HasPromptSource && !HumanPromptSource(r.PromptSource) {
		return "", false
	}
	c := r.Message.Get("content")
	var text string
	switch {
	case c.Type == gjson.String:
		text = c.String()
	case c.IsArray():
		var parts []string
		human := true
		c.ForEach(func(_, blk gjson.Result) bool {
			switch blk.Get("type").String() {
			case BlockToolResult:
				human = false
				return false
			case BlockText:
				if t := blk.Get("text").String(); IsHumanText(t) {
					parts = append(parts, t)
				}
			}
			return true
		})
		if !human {
			return "", false
		}
		text = strings.Join(parts, "\n")
	default:
		return "", false
	}
	text = strings.TrimSpace(text)
	if !IsHumanText(text) {
		return "", false
	}
	return text, true
}

// promptTooLongText is how the API's refusal starts.
const promptTooLongText = "prompt is too long"

// APIError reports whether line is a main-chain API-error record (the
// synthetic assistant record Claude Code writes when a turn fails), with
// its error type and whether the prompt was too long. Sidechain records
// are never the session's error.
func APIError(line []byte) (errType string, tooLong, ok bool) {
	if !gjson.ValidBytes(line) {
		return "", false, false
	}
	r := gjson.ParseBytes(line)
	if r.Get(KeyIsSidechain).Bool() || r.Get(KeyType).Str != TypeAssistant || !r.Get(KeyIsAPIErrorMessage).Bool() {
		return "", false, false
	}
	text := strings.ToLower(r.Get("message.content.0.text").Str)
	return r.Get(KeyError).Str, strings.Contains(text, promptTooLongText), true
}

// IsPromptTooLong reports whether a hook's error fields say the prompt was
// too long (StopFailure's error and error_details).
func IsPromptTooLong(errType, details string) bool {
	if errType == "prompt_too_long" {
		return true
	}
	d := strings.ToLower(details)
	return strings.Contains(d, promptTooLongText) || strings.Contains(d, "prompt_too_long")
}

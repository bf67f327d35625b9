package codexsessions

import (
	"io"
	"strings"

	"github.com/tether-dev/tether/agent"
	jsonscan "github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/agent/scan"

	"github.com/tidwall/gjson"
)

// Search reads Codex's rollouts through format.
func init() { agent.RegisterFormat(agent.Codex, format{}) }

// format is Codex's agent.Format.
type format struct{}

// countItem applies the rule to one rollout item of type typ with payload p.
func countItem(m *agent.MessageCount, typ string, p gjson.Result) {
	if typ != "response_item" || p.Get("type").String() != "message" {
		return
	}
	if role := p.Get("role").String(); role == "assistant" || role == "user" {
		m.N++
	}
}

// countLine applies the rule to one line (lines the incremental count
// parses for nothing else).
func countLine(m *agent.MessageCount, line []byte) {
	typ, p, _ := envelope(scan.BytesString(line, true))
	countItem(m, typ, p)
}

// Texts implements agent.Format. Codex can record a prompt twice (see
// promptEcho): the second copy is not given.
func (format) Texts(r io.Reader, mc *agent.MessageCount, fn func(agent.Text)) (int64, error) {
	var echo promptEcho
	return scan.LinesCounted(r, mc, func(line []byte) {
		for _, t := range recordTexts(line, true, true, mc) {
			if t.Kind == agent.TextPrompt && echo.repeats(line, t.Text) {
				continue
			}
			fn(t)
		}
	})
}

// RecordTexts implements agent.Format.
func (format) RecordTexts(line []byte, all, zeroCopy bool, mc *agent.MessageCount) []agent.Text {
	return recordTexts(line, all, zeroCopy, mc)
}

// envelope is a rollout line's type and payload. Only the envelope is
// scanned; the payload (a tool's whole output, for function_call_output)
// is decoded later only as far as needed. ok is false when the line is
// not a JSON object.
func envelope(line string) (typ string, p gjson.Result, ok bool) {
	ok = jsonscan.EachTop(line, func(k, raw string) bool {
		switch k {
		case "type":
			typ = gjson.Parse(raw).Str
		case "payload":
			p = gjson.Parse(raw)
		}
		return true
	})
	return typ, p, ok
}

func recordTexts(line []byte, all, zeroCopy bool, mc *agent.MessageCount) []agent.Text {
	typ, p, ok := envelope(scan.BytesString(line, zeroCopy))
	if !ok {
		return nil
	}
	if mc != nil {
		countItem(mc, typ, p)
	}
	if typ != "event_msg" && typ != "response_item" {
		return nil
	}
	ptyp := p.Get("type").String()
	switch {
	case typ == "event_msg" && ptyp == "user_message":
		return []agent.Text{{Kind: agent.TextPrompt, Text: p.Get("message").String()}}
	case typ == "response_item" && ptyp == "message":
		switch p.Get("role").String() {
		case "user":
			if t, ok := humanText(p); ok {
				return []agent.Text{{Kind: agent.TextPrompt, Text: t}}
			}
		case "assistant":
			if all {
				var out []agent.Text
				scan.EachBlock(p, func(b gjson.Result) {
					out = append(out, agent.Text{Kind: agent.TextAssistant, Text: scan.TextMember(b)})
				})
				return out
			}
		}
	case all && typ == "response_item" && (ptyp == "function_call" || ptyp == "custom_tool_call" || ptyp == "local_shell_call"):
		input := p.Get("input")
		if a := p.Get("arguments"); a.Exists() {
			input = gjson.Parse(a.String())
		} else if p.Get("action").Exists() {
			input = p.Get("action")
		}
		name := p.Get("name").String()
		if name == "" {
			name = "local_shell"
		}
		return []agent.Text{{Kind: agent.TextTool, Text: scan.ToolText(name, input)}}
	}
	return nil
}

// promptEcho finds the second copy of a Codex prompt: Codex can record a
// prompt twice, as a response_item message and, next, as an event_msg
// user_message (the benchmark corpus does for every prompt; the 0.171.0
// exec sample has only the response_item). Indexed
// twice it is read, tokenized and stored twice and weighs double in
// bm25. A prompt that follows the same text recorded the other way,
// with no prompt between them, is that copy. Only prompt lines, a few,
// have their envelope read again here.
type promptEcho struct {
	text           string // a copy: the line's buffer is reused
	event, pending bool
}

func (e *promptEcho) repeats(line []byte, text string) bool {
	typ, _, _ := envelope(scan.BytesString(line, true))
	event := typ == "event_msg"
	if e.pending && event != e.event && text == e.text {
		e.pending = false
		return true
	}
	e.text, e.event, e.pending = strings.Clone(text), event, true
	return false
}

package trim

import (
	"encoding/json"
	"fmt"
	"strings"
)

// tb builds synthetic transcripts shaped like the real samples in
// testdata/: one content block per assistant record (records of one
// message share message.id and chain by parentUuid), tool_result records
// carrying toolUseResult and sourceToolAssistantUUID, the 2.0.77 envelope
// or the 2.1.332 one (entrypoint, promptSource, promptId).
type tb struct {
	version   string
	session   string
	cwd       string
	lines     []string
	last      string // uuid of the newest chain record
	n         int
	msg       int
	sidechain bool
}

func newTB(version string) *tb {
	return &tb{version: version, session: "4a3624db-9f07-42fe-a7f0-a27427d60850", cwd: "/home/example/src/proj"}
}

func (b *tb) uuid() string {
	b.n++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", b.n)
}

func (b *tb) add(m map[string]any) {
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	b.lines = append(b.lines, string(data))
}

// chain appends a chain record under the newest one and returns its uuid.
func (b *tb) chain(typ string, fields map[string]any) string {
	u := b.uuid()
	m := map[string]any{
		"parentUuid": nil, "isSidechain": b.sidechain, "userType": "external", "cwd": b.cwd,
		"sessionId": b.session, "version": b.version, "gitBranch": "", "type": typ, "uuid": u,
		"timestamp": fmt.Sprintf("2026-11-30T11:%02d:%02d.000Z", b.n/60%60, b.n%60),
	}
	if b.last != "" {
		m["parentUuid"] = b.last
	}
	if strings.HasPrefix(b.version, "2.1") {
		m["entrypoint"] = "sdk-cli"
	}
	for k, v := range fields {
		m[k] = v
	}
	b.add(m)
	b.last = u
	return u
}

func (b *tb) nonChain(typ string, fields map[string]any) {
	m := map[string]any{"type": typ, "sessionId": b.session}
	for k, v := range fields {
		m[k] = v
	}
	b.add(m)
}

func (b *tb) prompt(text string) string {
	f := map[string]any{"message": map[string]any{"role": "user", "content": text}}
	if strings.HasPrefix(b.version, "2.1") {
		f["promptSource"] = "sdk"
		f["promptId"] = fmt.Sprintf("p-%d", b.n)
	}
	return b.chain("user", f)
}

func (b *tb) attachment(kind string, rendered string) string {
	f := map[string]any{"attachment": map[string]any{"type": kind}}
	if rendered != "" {
		f["rendered"] = []any{map[string]any{"content": rendered}}
		f["renderedRole"] = "system"
	}
	return b.chain("attachment", f)
}

func (b *tb) newMessage() string {
	b.msg++
	return fmt.Sprintf("msg_fake%06d", b.msg)
}

func (b *tb) assistant(msgID string, block map[string]any) string {
	return b.chain("assistant", map[string]any{
		"requestId": "req_" + msgID,
		"message": map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{block}, "stop_reason": nil,
			"usage": map[string]any{"input_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1000, "output_tokens": 10},
		},
	})
}

func (b *tb) thinking(msgID, text string) string {
	return b.assistant(msgID, map[string]any{"type": "thinking", "thinking": text, "signature": "sig"})
}

func (b *tb) text(msgID, text string) string {
	return b.assistant(msgID, map[string]any{"type": "text", "text": text})
}

func (b *tb) toolUse(msgID, id, name string, input map[string]any) string {
	return b.assistant(msgID, map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
}

func (b *tb) toolResult(id, content string) string {
	src := b.last
	return b.chain("user", map[string]any{
		"message": map[string]any{"role": "user", "content": []any{
			map[string]any{"tool_use_id": id, "type": "tool_result", "content": content, "is_error": false}}},
		"toolUseResult":           map[string]any{"stdout": content, "stderr": "", "interrupted": false},
		"sourceToolAssistantUUID": src,
	})
}

// turn appends a full turn: prompt, thinking, text, one tool call per
// entry of tools ("Read:/path" or "Bash:cmd"), and a final answer.
func (b *tb) turn(prompt string, result string, tools ...string) {
	b.prompt(prompt)
	m := b.newMessage()
	b.thinking(m, "thinking about "+prompt)
	b.text(m, "I'll look.")
	for _, t := range tools {
		name, arg, _ := strings.Cut(t, ":")
		id := fmt.Sprintf("toolu_fake%04d", b.n)
		in := map[string]any{"command": arg}
		if name == "Read" {
			in = map[string]any{"file_path": arg}
		}
		b.toolUse(m, id, name, in)
		b.toolResult(id, result)
		m = b.newMessage()
	}
	b.text(m, "Done with "+prompt)
}

func (b *tb) String() string { return strings.Join(b.lines, "\n") + "\n" }

package scan

import (
	"encoding/binary"
	"strings"

	"github.com/tether-dev/tether/agent/evidence"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tidwall/gjson"
)

// Search reads a few members of each assistant content block and tool
// input. Asking gjson for each member by name scans the object from its
// start every time, past a Write's whole file content or a thinking
// block, up to twelve times a block (a fifth of an index build's CPU);
// these read every member once, decoding only the ones wanted. They give
// what the per-member gjson Gets gave: the first member of a name, and
// the gjson lookups themselves for an object the scanner does not accept
// or that has a member name with an escape (gjson matches it
// unescaped, the scanner raw).

// BlockFields are the members of an assistant content block search uses.
type BlockFields struct {
	Type, Text, Name string
	Input            gjson.Result
}

// Read reads b's members.
func (f *BlockFields) Read(b gjson.Result) {
	const typ, text, name, input = 0, 1, 2, 3
	var raws [4]*string
	var vals [4]string
	esc := false
	ok := b.IsObject() && jsonl.EachTop(b.Raw, func(k, raw string) bool {
		esc = esc || strings.IndexByte(k, '\\') >= 0
		i := -1
		switch k {
		case "type":
			i = typ
		case "text":
			i = text
		case "name":
			i = name
		case "input":
			i = input
		}
		if i >= 0 && raws[i] == nil {
			vals[i] = raw
			raws[i] = &vals[i]
		}
		return true
	})
	if !ok || esc {
		f.Type, f.Text, f.Name, f.Input = b.Get("type").String(), b.Get("text").String(), b.Get("name").String(), b.Get("input")
		return
	}
	f.Type = ParsedString(raws[typ])
	switch f.Type {
	case "text":
		f.Text = ParsedString(raws[text])
	case "tool_use":
		f.Name, f.Input = ParsedString(raws[name]), parsed(raws[input])
	}
}

// TextMember is b.Get("text").String(), the text of a Codex content
// block, decoded by ParsedString (a third of an index build's assistant
// text is Codex's); gjson's own lookup for what the scanner does not
// accept or a member name with an escape, as BlockFields does.
func TextMember(b gjson.Result) string {
	var raw *string
	var val string
	esc := false
	ok := b.IsObject() && jsonl.EachTop(b.Raw, func(k, r string) bool {
		esc = esc || strings.IndexByte(k, '\\') >= 0
		if k == "text" && raw == nil {
			val = r
			raw = &val
		}
		return true
	})
	if !ok || esc {
		return b.Get("text").String()
	}
	return ParsedString(raw)
}

// ParsedString is parsed(raw).String() for a member that is a JSON
// string, without gjson's byte-at-a-time copy: the assistant's text is
// most of what an index build decodes. A string with no escape is a slice
// of the line; one with \u escapes, or a member of another type, is
// gjson's.
func ParsedString(raw *string) string {
	if raw == nil || len(*raw) < 2 || (*raw)[0] != '"' || (*raw)[len(*raw)-1] != '"' {
		return parsed(raw).String()
	}
	s := (*raw)[1 : len(*raw)-1]
	if strings.IndexByte(s, '\\') < 0 {
		return s // as gjson: no check for control characters without an escape
	}
	if strings.Contains(s, `\u`) {
		return parsed(raw).String()
	}
	return unescapeSimple(s)
}

// unescapeSimple decodes s (a JSON string's contents without \u escapes)
// exactly as gjson does: runs between escapes are copied at once, and a
// control character or an unknown escape ends the string. The string is
// the decoded bytes themselves (nothing else holds them): not copied again.
func unescapeSimple(s string) string {
	b := make([]byte, 0, len(s))
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			i = len(s)
		}
		if c := firstControl(s[:i]); c >= 0 {
			return BytesString(append(b, s[:c]...), true)
		}
		b = append(b, s[:i]...)
		if i+1 >= len(s) || s[i] != '\\' {
			return BytesString(b, true)
		}
		var c byte
		switch s[i+1] {
		case '\\', '/', '"':
			c = s[i+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default:
			return BytesString(b, true)
		}
		b = append(b, c)
		s = s[i+2:]
	}
}

// toolPathKeys are the input members ToolText takes as paths, in order.
var toolPathKeys = [...]string{"file_path", "filePath", "notebook_path", "path", "pattern", "workdir", "url"}

// toolInput are the members of a tool input ToolText uses.
type toolInput struct {
	paths               [len(toolPathKeys)]gjson.Result
	command, cmd, input gjson.Result
}

func (t *toolInput) read(in gjson.Result) {
	if !in.IsObject() {
		return
	}
	var raws [len(toolPathKeys) + 3]string
	var seen [len(raws)]bool
	esc := false
	ok := jsonl.EachTop(in.Raw, func(k, raw string) bool {
		esc = esc || strings.IndexByte(k, '\\') >= 0
		i := toolKeyIndex(k)
		if i >= 0 && !seen[i] {
			seen[i], raws[i] = true, raw
		}
		return true
	})
	if !ok || esc {
		for i, k := range toolPathKeys {
			t.paths[i] = in.Get(k)
		}
		t.command, t.cmd, t.input = in.Get("command"), in.Get("cmd"), in.Get("input")
		return
	}
	for i := range toolPathKeys {
		if seen[i] {
			t.paths[i] = gjson.Parse(raws[i])
		}
	}
	n := len(toolPathKeys)
	for i, r := range []*gjson.Result{&t.command, &t.cmd, &t.input} {
		if seen[n+i] {
			*r = gjson.Parse(raws[n+i])
		}
	}
}

func toolKeyIndex(k string) int {
	for i, want := range toolPathKeys {
		if k == want {
			return i
		}
	}
	switch k {
	case "command":
		return len(toolPathKeys)
	case "cmd":
		return len(toolPathKeys) + 1
	case "input":
		return len(toolPathKeys) + 2
	}
	return -1
}

// parsed is the member raw (nil: absent) as gjson gives it.
func parsed(raw *string) gjson.Result {
	if raw == nil {
		return gjson.Result{}
	}
	return gjson.Parse(*raw)
}

// firstControl is the index of the first byte of s below 0x20, or -1:
// eight bytes at a time (a word has such a byte when subtracting 0x20
// from each byte borrows into a byte that had its top bit clear).
func firstControl(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		if (x-0x20*ones)&^x&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] < ' ' {
			return i
		}
	}
	return -1
}

// MessageFields are the members of an assistant message search and the
// message count use, read in one pass with the envelope scanner: gjson's
// Get of "content" steps through every byte of the blocks (a Write's
// whole file, a thinking block), and Gets of "model" and "id" after the
// content walk it again. Each is what the gjson lookup gives: the first
// member of the name, and gjson's own lookups for an object the scanner
// does not accept or a member name with an escape.
type MessageFields struct {
	Model, ID string
	content   gjson.Result
	// gets: the scanner did not read the object; content is gjson's.
	gets bool
}

// Read reads msg's members.
func (f *MessageFields) Read(msg gjson.Result) {
	const model, id, content = 0, 1, 2
	var raws [3]*string
	var vals [3]string
	esc := false
	ok := msg.IsObject() && jsonl.EachTop(msg.Raw, func(k, raw string) bool {
		esc = esc || strings.IndexByte(k, '\\') >= 0
		i := -1
		switch k {
		case "model":
			i = model
		case "id":
			i = id
		case "content":
			i = content
		}
		if i >= 0 && raws[i] == nil {
			vals[i] = raw
			raws[i] = &vals[i]
		}
		return true
	})
	if !ok || esc {
		f.Model, f.ID, f.content, f.gets = msg.Get("model").String(), msg.Get("id").String(), msg.Get("content"), true
		return
	}
	f.Model, f.ID, f.content = ParsedString(raws[model]), ParsedString(raws[id]), parsed(raws[content])
}

// EachBlock is f's content.ForEach(fn) for an array the scanner accepts
// (each element's end found between quotes, not byte by byte); gjson's
// ForEach for anything else.
func (f *MessageFields) EachBlock(fn func(b gjson.Result)) {
	raw := f.content.Raw
	var blocks [8]string
	elems := blocks[:0]
	if !f.gets && len(raw) > 0 && raw[0] == '[' &&
		jsonl.EachElem(raw, func(v string) bool { elems = append(elems, v); return true }) {
		for _, v := range elems {
			fn(gjson.Parse(v))
		}
		return
	}
	f.content.ForEach(func(_, b gjson.Result) bool { fn(b); return true })
}

// EachBlock is obj.Get("content").ForEach(fn) over the content blocks of
// a message (a Codex payload), as MessageFields reads them.
func EachBlock(obj gjson.Result, fn func(b gjson.Result)) {
	var f MessageFields
	f.Read(obj)
	f.EachBlock(fn)
}

// ToolText is a tool call as search sees it: the tool's name and the
// paths, patterns and command it was given (a command cut to 500 bytes:
// heredocs can be long, and what is searched for is the command).
func ToolText(name string, input gjson.Result) string {
	var in toolInput
	in.read(input)
	parts := []string{name}
	for _, v := range in.paths {
		if v.Type == gjson.String && v.Str != "" {
			parts = append(parts, v.Str)
		}
	}
	cmd := in.command
	if !cmd.Exists() {
		cmd = in.cmd
	}
	c := cmd.String()
	if cmd.IsArray() {
		var words []string
		cmd.ForEach(func(_, v gjson.Result) bool { words = append(words, v.String()); return true })
		c = strings.Join(words, " ")
	}
	if len(c) > 500 {
		c = OneLine(c, 500)
	}
	if c != "" {
		parts = append(parts, c)
	}
	// apply_patch's input is the patch (the whole input, or its "input"
	// member): its file names.
	for _, patch := range [...]gjson.Result{input, in.input} {
		if patch.Type == gjson.String {
			parts = append(parts, evidence.PatchFiles(patch.Str)...)
		}
	}
	return strings.Join(parts, " ")
}

package scan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/evidence"

	"github.com/tidwall/gjson"
)

// toolTextGets is ToolText as it was, one gjson lookup per member: the
// single-pass reading must give the same text for every input.
func toolTextGets(name string, input gjson.Result) string {
	parts := []string{name}
	for _, k := range toolPathKeys {
		if v := input.Get(k); v.Type == gjson.String && v.Str != "" {
			parts = append(parts, v.Str)
		}
	}
	cmd := input.Get("command")
	if !cmd.Exists() {
		cmd = input.Get("cmd")
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
	if input.Type == gjson.String {
		parts = append(parts, evidence.PatchFiles(input.Str)...)
	}
	if patch := input.Get("input"); patch.Type == gjson.String {
		parts = append(parts, evidence.PatchFiles(patch.Str)...)
	}
	return strings.Join(parts, " ")
}

var fieldCases = []string{
	`{"file_path":"/home/example/a.go","content":"x\ny","path":"p"}`,
	`{"url":"u","workdir":"w","pattern":"*.go","notebook_path":"n.ipynb","path":"","file_path":"f"}`,
	`{"command":"go test ./...","cmd":"ignored"}`,
	`{"cmd":["bash","-lc","ls -la"]}`,
	`{"command":null,"cmd":"not used: command exists"}`,
	`{"command":["a",1,true]}`,
	`{"file_path":"first","file_path":"second"}`,
	`{"file\u005fpath":"escaped name","path":"p"}`,
	`{"input":"*** Begin Patch\n*** Update File: a/b.go\n@@\n*** Add File: c.go\n"}`,
	`"*** Begin Patch\n*** Update File: s.go\n"`,
	`{"command":"` + strings.Repeat("long ", 200) + `"}`,
	`{"file_path":"trunc`,
	`{"file_path":"x",}`,
	`{"file_path":7,"path":{"nested":"p"},"command":{"a":1}}`,
	`[1,2]`,
	`{}`,
	``,
	`{ "file_path" : "spaced" , "command" : "ls" }`,
}

func TestToolTextSinglePassIsGets(t *testing.T) {
	for _, c := range fieldCases {
		in := gjson.Parse(c)
		if got, want := ToolText("Tool", in), toolTextGets("Tool", in); got != want {
			t.Errorf("ToolText(%s) = %q, per-member lookups give %q", c, got, want)
		}
	}
}

func TestBlockFieldsAreGets(t *testing.T) {
	blocks := []string{
		`{"type":"text","text":"hello\nworld \u00e9"}`,
		`{"text":"before type","type":"text"}`,
		`{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/home/example/x","content":"` + strings.Repeat("y", 3000) + `"}}`,
		`{"type":"thinking","thinking":"hmm","signature":"s"}`,
		`{"type":"text","type":"tool_use","text":"dup type"}`,
		`{"t\u0079pe":"text","text":"escaped name"}`,
		`{"type":"tool_use","name":"Bash","input":"not an object"}`,
		`{"type":"text"}`,
		`{"type":"text","text":7}`,
		`"a string block"`,
		`{"type":"text","text":"broken`,
	}
	for _, c := range blocks {
		b := gjson.Parse(c)
		var f BlockFields
		f.Read(b)
		typ := b.Get("type").String()
		if f.Type != typ {
			t.Errorf("%s: type %q, want %q", c, f.Type, typ)
		}
		switch typ {
		case "text":
			if want := b.Get("text").String(); f.Text != want {
				t.Errorf("%s: text %q, want %q", c, f.Text, want)
			}
		case "tool_use":
			if want := b.Get("name").String(); f.Name != want {
				t.Errorf("%s: name %q, want %q", c, f.Name, want)
			}
			if got, want := ToolText(f.Name, f.Input), toolTextGets(b.Get("name").String(), b.Get("input")); got != want {
				t.Errorf("%s: tool text %q, want %q", c, got, want)
			}
		}
	}
}

// ParsedString gives what gjson gives for every string member: JSON the
// CLIs write (every escape, non-ASCII, \u escapes and surrogates) and
// what they do not (raw control characters, unknown escapes, invalid
// UTF-8, numbers and objects), so the index holds the same text.
func TestParsedStringIsGjsons(t *testing.T) {
	raws := []string{
		`""`, `"plain"`, `"a\nb"`, `"tab\there \"q\" \\ \/ \b\f\r"`, `"\\"`, `"\\\\"`, `"x\\"`,
		`"caf\u00e9"`, `"\ud83d\ude00 smile"`, `"lone \ud83d end"`, `"bad \x escape"`, `"ctl ` + "\x01" + ` after"`,
		`"ctl ` + "\x01" + ` \n after"`, `"ünïcödé\n日本語"`, "\"invalid \xff utf8\\n\"", `"\u2028"`, `"end \`, `"`,
		`12`, `true`, `null`, `{"a":1}`, `["x"]`, ` "spaced" `,
	}
	alphabet := []string{"a", " ", "\n", "\t", `"`, `\`, "/", "é", "日", "\x01", "\x7f", "\u2028", "\xff", "\U0001F600"}
	seed := uint32(1)
	next := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	for range 5000 {
		var b strings.Builder
		for range next(40) {
			b.WriteString(alphabet[next(len(alphabet))])
		}
		raw, _ := json.Marshal(b.String())
		var plain strings.Builder // no \u escapes for <, > and &
		enc := json.NewEncoder(&plain)
		enc.SetEscapeHTML(false)
		enc.Encode(b.String())
		raws = append(raws, string(raw), strings.TrimSuffix(plain.String(), "\n"))
	}
	for _, raw := range raws {
		r := raw
		if got, want := ParsedString(&r), gjson.Parse(raw).String(); got != want {
			t.Errorf("%q: %q, gjson %q", raw, got, want)
		}
	}
	if ParsedString(nil) != "" {
		t.Error("absent member is not empty")
	}
}

// TextMember gives what b.Get("text") gives for any content block.
func TestTextMemberIsGjsons(t *testing.T) {
	blocks := []string{
		`{"type":"output_text","text":"hello\nworld","annotations":[]}`,
		`{"text":"first","text":"second"}`, `{"type":"output_text"}`, `{"text":12}`, `{"text":null}`,
		`{"te\u0078t":"escaped name"}`, `{"text":"caf\u00e9 \ud83d\ude00"}`, `"a string"`, `["text"]`, `{"text":"unterminated`,
		`{"nested":{"text":"inner"},"text":"outer"}`, `{"text":{"a":1}}`, ` {"text" : "spaced" } `,
	}
	for _, raw := range blocks {
		b := gjson.Parse(raw)
		if got, want := TextMember(b), b.Get("text").String(); got != want {
			t.Errorf("%s: %q, gjson %q", raw, got, want)
		}
	}
}

// EachBlock gives the blocks obj.Get("content").ForEach gives, with the
// same raw text, and MessageFields the model and id gjson's Gets give,
// for any message: the content an array, a string, an object, absent,
// duplicated, after an escaped name, malformed.
func TestMessageFieldsAreGjsons(t *testing.T) {
	big := strings.Repeat(`say \"hi\" `, 500)
	msgs := []string{
		`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}`,
		`{"content":[]}`, `{"content":[ {"type":"text","text":"spaced"} , "str" , 7 ]}`,
		`{"model":"m","content":[{"type":"thinking","thinking":"` + big + `"},{"type":"text","text":"after"}],"usage":{}}`,
		`{"content":"a string"}`, `{"content":{"type":"text","text":"an object"}}`, `{"content":null}`,
		`{"role":"assistant"}`, `{"content":[{"a":1}],"content":[{"b":2}]}`, `{"con\u0074ent":[{"x":1}],"content":[{"y":2}]}`,
		`{"content":[{"a":1} {"b":2}]}`, `{"content":[{"a":1},]}`, `{"content":[{"a":1}`, `{"content":[1,2,3]}`,
		`"not an object"`, `[{"content":[1]}]`, ``, `{"content":[["nested"],{"k":[1,{"v":"]"}]}]}`,
	}
	msgs = append(msgs, `{"content":[{"type":"text","text":"a"}],"model":"claude-x","id":"msg_1"}`,
		`{"model":"<synthetic>","id":"m\u0031","content":[]}`, `{"model":7,"id":null}`, `{"id":"first","id":"second"}`,
		`{"mod\u0065l":"escaped","model":"plain"}`, `{"model":"unterminated`)
	for _, raw := range msgs {
		obj := gjson.Parse(raw)
		var got, want []string
		EachBlock(obj, func(b gjson.Result) { got = append(got, b.Raw) })
		obj.Get("content").ForEach(func(_, b gjson.Result) bool { want = append(want, b.Raw); return true })
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("%.80s: blocks %q, gjson %q", raw, got, want)
		}
		var f MessageFields
		f.Read(obj)
		if model, id := obj.Get("model").String(), obj.Get("id").String(); f.Model != model || f.ID != id {
			t.Errorf("%.80s: model %q id %q, gjson %q %q", raw, f.Model, f.ID, model, id)
		}
	}
}

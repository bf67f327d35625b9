package trim

import (
	"os"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/tidwall/gjson"
)

func TestValidate(t *testing.T) {
	u := func(uuid, parent, extra string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,"isSidechain":false` + extra + `,"message":{"role":"user","content":"hi"}}`
	}
	use := func(uuid, parent, id string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","isSidechain":false,"message":{"content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]}}`
	}
	res := func(uuid, parent, id string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `","isSidechain":false,"message":{"content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"x"}]}}`
	}
	boundary := `{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a","isSidechain":false}`
	cases := []struct {
		name  string
		lines []string
		want  string // "" means valid
	}{
		{"minimal", []string{u("a", "", "")}, ""},
		{"pair", []string{u("a", "", ""), use("b", "a", "t1"), res("c", "b", "t1")}, ""},
		{"non-chain records", []string{`{"type":"summary","summary":"s","leafUuid":"elsewhere"}`, u("a", "", "")}, ""},
		{"compaction", []string{u("a", "", ""), boundary, u("c", "b", `,"isCompactSummary":true`)}, ""},
		{"empty file", nil, ""},
		{"garbage", []string{u("a", "", ""), "{oops"}, "line 2: not valid JSON"},
		{"blank line", []string{u("a", "", ""), ""}, "line 2: not valid JSON"},
		{"array line", []string{"[1,2]"}, "not a JSON object"},
		{"dangling parent", []string{u("a", "zzz", "")}, `parentUuid "zzz" is not in the file`},
		{"duplicate uuid", []string{u("a", "", ""), u("a", "", "")}, "duplicate uuid"},
		{"bad parent type", []string{`{"uuid":"a","parentUuid":5}`}, "neither a string nor null"},
		{"tool_use without result", []string{u("a", "", ""), use("b", "a", "t1")}, `tool_use "t1" has no tool_result`},
		{"result before use", []string{u("a", "", ""), res("c", "a", "t1"), use("b", "c", "t1")}, "no tool_use before it"},
		{"orphan result", []string{u("a", "", ""), res("c", "a", "t9")}, "no tool_use before it"},
		{"two results", []string{u("a", "", ""), use("b", "a", "t1"), res("c", "b", "t1"), res("d", "c", "t1")}, "second tool_result"},
		{"duplicate tool_use", []string{u("a", "", ""), use("b", "a", "t1"), use("c", "b", "t1")}, "used twice"},
		{"cycle", []string{`{"uuid":"a","parentUuid":"b"}`, `{"uuid":"b","parentUuid":"a"}`}, "cycle"},
		{"boundary with parent", []string{u("a", "", ""), strings.Replace(boundary, `"parentUuid":null`, `"parentUuid":"a"`, 1)}, "must be a root"},
		{"boundary logical dangles", []string{strings.Replace(boundary, `"a"`, `"gone"`, 1)}, "logicalParentUuid"},
		{"summary without boundary", []string{u("a", "", ""), u("c", "a", `,"isCompactSummary":true`)}, "does not descend from a compact_boundary"},
		{"main chain under sidechain", []string{`{"uuid":"a","parentUuid":null,"isSidechain":true}`, u("b", "a", "")}, "sidechain"},
		// A parent may come later in the file (the validator resolves it at the end).
		{"parent later in the file", []string{u("b", "a", ""), u("a", "", "")}, ""},
		{"parent later, dangling", []string{u("b", "a", ""), u("c", "zzz", ""), u("a", "", "")}, `line 2: parentUuid "zzz" is not in the file`},
		{"parent later under sidechain", []string{u("b", "a", ""), `{"uuid":"a","parentUuid":null,"isSidechain":true}`}, "line 1: main-chain record whose parent is a sidechain"},
		{"self parent", []string{u("a", "a", "")}, "cycle"},
		{"summary under a later boundary", []string{u("c", "b", `,"isCompactSummary":true`), boundary, u("a", "", "")}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Join(c.lines, "\n")
			if len(c.lines) > 0 {
				in += "\n"
			}
			err := Validate(strings.NewReader(in))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("want %q, got %v", c.want, err)
			}
		})
	}
}

func TestValidateLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := `{"type":"user","uuid":"a","parentUuid":null,"message":{"content":"` + big + `"}}` + "\n"
	if err := Validate(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
}

// envelopeByGet is what envelopeOf replaced: one gjson Get per key.
func envelopeByGet(v gjson.Result) venvelope {
	return venvelope{typ: v.Get("type"), uuid: v.Get("uuid"), parent: v.Get("parentUuid"), sidechain: v.Get("isSidechain"),
		summary: v.Get(claude.KeyIsCompactSummary), subtype: v.Get(claude.KeySubtype), logical: v.Get("logicalParentUuid")}
}

func checkEnvelope(t *testing.T, line string) {
	t.Helper()
	if !gjson.Valid(line) {
		return
	}
	v := gjson.Parse(line)
	if !v.IsObject() {
		return
	}
	got, want := envelopeOf(v), envelopeByGet(v)
	for _, f := range []struct{ g, w gjson.Result }{{got.typ, want.typ}, {got.uuid, want.uuid}, {got.parent, want.parent},
		{got.sidechain, want.sidechain}, {got.summary, want.summary}, {got.subtype, want.subtype}, {got.logical, want.logical}} {
		if f.g.Raw != f.w.Raw || f.g.Type != f.w.Type || f.g.Str != f.w.Str {
			t.Fatalf("envelopeOf(%.300s): %q, Get says %q", line, f.g.Raw, f.w.Raw)
		}
	}
}

var envelopeCases = []string{
	`{"type":"user","type":"x","uuid":"a","uuid":"b","parentUuid":null,"isSidechain":true,"isSidechain":false}`,
	`{"typ\u0065":"esc","type":"plain","parent\u0055uid":"p"}`, `{"uuid":5,"parentUuid":{"a":1},"subtype":"compact_boundary"}`,
	`{"message":{"type":"inner","uuid":"in"},"logicalParentUuid":"l","isCompactSummary":true}`, `{}`,
}

// TestEnvelopeMatchesGet: the one-walk envelope reads what a Get per key
// read, on the goldens and on lines with repeated and escaped keys.
func TestEnvelopeMatchesGet(t *testing.T) {
	for _, p := range goldenTranscripts(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			checkEnvelope(t, l)
		}
	}
	for _, l := range envelopeCases {
		checkEnvelope(t, l)
	}
}

func FuzzEnvelope(f *testing.F) {
	for _, l := range envelopeCases {
		f.Add(l)
	}
	f.Fuzz(checkEnvelope)
}

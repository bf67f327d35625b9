package trim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/internal/testkit/testutil"

	"github.com/tidwall/gjson"
)

// gjsonRec is what classify records of a line, with every interned value
// spelled out: the form both readings below are compared in.
type gjsonRec struct {
	Class                                            uint8
	Typ, UUID, Parent, Logical, Leaf, Version, Model string
	Unknown                                          string
	Sidechain, Meta, Human, Boundary, Summary        bool
	Synthetic, Thinking, Text, Unrendered            bool
	Send, TurSize                                    int64
	Uses                                             []string // id, then path for a Read
	Results                                          []string // id:block:size
}

// spelled is rc in the comparable form.
func (sr *scanResult) spelled(rc *rec) gjsonRec {
	g := gjsonRec{Class: rc.class, Typ: sr.names.text(rc.typ), UUID: sr.uuids.text(rc.uuid), Parent: sr.uuids.text(rc.parent),
		Logical: sr.uuids.text(rc.logical), Leaf: sr.uuids.text(rc.leaf), Version: sr.names.text(rc.version),
		Model: sr.names.text(rc.model), Unknown: sr.names.text(rc.unknown), Sidechain: rc.sidechain, Meta: rc.meta,
		Human: rc.human, Boundary: rc.boundary, Summary: rc.summary, Synthetic: rc.synthetic, Thinking: rc.thinking,
		Text: rc.text, Unrendered: rc.unrendered, Send: rc.send, TurSize: rc.turSize}
	tools := map[tid]string{}
	for s, id := range sr.tools.idx {
		tools[id] = s
	}
	for _, u := range sr.usesOf(rc) {
		g.Uses = append(g.Uses, tools[u.id])
		if u.read {
			g.Uses = append(g.Uses, "Read:"+u.path)
		}
	}
	for _, r := range sr.resultsOf(rc) {
		g.Results = append(g.Results, fmt.Sprintf("%s:%d:%d", tools[r.id], r.block, r.size))
	}
	return g
}

// classifyGJSON is the reading classify replaced: gjson's parse of the
// whole line (ForEach over the top level, Get below it). classify must
// agree with it on every line jsonl.Valid accepts.
func classifyGJSON(line []byte, allowUnknown bool) (gjsonRec, string) {
	var rc gjsonRec
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return rc, "not a JSON object"
	}
	var message gjson.Result
	has := map[string]bool{}
	notHuman := false
	root.ForEach(func(k, v gjson.Result) bool {
		has[k.Str] = true
		switch k.Str {
		case "type":
			rc.Typ = v.Str
		case "uuid":
			rc.UUID = v.Str
		case "parentUuid":
			rc.Parent = v.Str
		case "logicalParentUuid":
			rc.Logical = v.Str
		case "leafUuid":
			rc.Leaf = v.Str
		case "version":
			rc.Version = v.Str
		case "isSidechain":
			rc.Sidechain = v.Type == gjson.True
		case "isMeta":
			rc.Meta = v.Type == gjson.True
		case claude.KeyIsCompactSummary:
			rc.Summary = v.Type == gjson.True
		case claude.KeyIsAPIErrorMessage:
			rc.Synthetic = rc.Synthetic || v.Type == gjson.True
		case claude.KeySubtype:
			rc.Boundary = v.Str == claude.SubtypeCompactBoundary
		case "message":
			message = v
		case "toolUseResult":
			rc.TurSize = int64(len(v.Raw))
		case "attachment":
			if !has["rendered"] {
				rc.Send, rc.Unrendered = int64(len(v.Raw)), true
			}
		case "rendered":
			rc.Send, rc.Unrendered = int64(len(v.Raw)), false
		case claude.KeyPromptSource:
			notHuman = notHuman || !claude.HumanPromptSource(v.Str)
		}
		return true
	})
	if rc.Typ != "system" {
		rc.Boundary = false
	}
	if rc.Typ == "" && !has["type"] {
		rc.Typ = "(none)"
	}
	switch {
	case chainTypes[rc.Typ]:
		rc.Class = classChain
	case nonChainTypes[rc.Typ] || (!has["uuid"] && !has["parentUuid"]):
		rc.Class, rc.Logical = classNonChain, ""
		return rc, ""
	default:
		if !allowUnknown {
			return rc, "unknown chain record type"
		}
		rc.Class = classUnknownChain
		if rc.UUID == "" {
			rc.Class, rc.Parent = classNonChain, ""
		}
		return rc, ""
	}
	rc.Leaf = ""
	for _, k := range envelopeKeys {
		if !has[k] {
			return rc, fmt.Sprintf("chain record without %q", k)
		}
	}
	if rc.UUID == "" {
		return rc, "chain record with an empty uuid"
	}
	if rc.Typ != "user" && rc.Typ != "assistant" {
		return rc, ""
	}
	if !message.IsObject() {
		return rc, "chain record without a \"message\" object"
	}
	content := message.Get("content")
	rc.Model = message.Get("model").Str
	rc.Synthetic = rc.Synthetic || rc.Model == claude.SyntheticModel
	rc.Send = int64(len(content.Raw))
	switch {
	case content.Type == gjson.String:
		if rc.Typ == "assistant" {
			rc.Text = true
		} else {
			rc.Human = claude.IsHumanText(content.Str)
		}
	case content.IsArray():
		blocks := userBlocks
		if rc.Typ == "assistant" {
			blocks = assistantBlocks
		}
		i := 0
		content.ForEach(func(_, b gjson.Result) bool {
			bt := b.Get("type").Str
			if !blocks[bt] && rc.Unknown == "" {
				rc.Unknown = bt
				if bt == "" {
					rc.Unknown = "(none)"
				}
			}
			switch bt {
			case "text":
				rc.Text = true
				if rc.Typ == "user" && !rc.Human {
					rc.Human = claude.IsHumanText(b.Get("text").Str)
				}
			case "thinking", "redacted_thinking":
				rc.Thinking = true
			case "tool_use":
				rc.Uses = append(rc.Uses, b.Get("id").Str)
				if b.Get("name").Str == "Read" {
					rc.Uses = append(rc.Uses, "Read:"+b.Get("input.file_path").Str)
				}
			case "tool_result":
				rc.Results = append(rc.Results, fmt.Sprintf("%s:%d:%d", b.Get("tool_use_id").Str, i, len(b.Get("content").Raw)))
			}
			i++
			return true
		})
		if len(rc.Results) > 0 {
			rc.Human = false
		}
	default:
		return rc, "message.content is neither a string nor an array"
	}
	if rc.Typ == "user" && (rc.Meta || rc.Sidechain || rc.Summary || notHuman) {
		rc.Human = false
	}
	return rc, ""
}

// checkClassify compares classify with the gjson reading on one line.
func checkClassify(t *testing.T, line []byte, allowUnknown bool) {
	t.Helper()
	if !jsonl.Valid(line) {
		return
	}
	want, wantErr := classifyGJSON(line, allowUnknown)
	sr := newScanResult()
	rc := rec{line: 1}
	err := sr.classify(line, &rc, allowUnknown)
	if wantErr != "" || err != nil {
		if err == nil || !strings.Contains(err.Error(), wantErr) || wantErr == "" {
			t.Fatalf("classify(%.300s) = %v, gjson reading: %q", line, err, wantErr)
		}
		return
	}
	if got := sr.spelled(&rc); !reflect.DeepEqual(got, want) {
		t.Fatalf("classify(%.300s)\n got %+v\nwant %+v", line, got, want)
	}
}

// TestClassifyMatchesGJSON: the raw walk reads every line of the golden
// transcripts and of a generated one as gjson does.
func TestClassifyMatchesGJSON(t *testing.T) {
	files, _ := filepath.Glob(testutil.Testdata(t, "claude-code-*", "golden-*.jsonl"))
	gen := filepath.Join(t.TempDir(), "gen.jsonl")
	generate(t, gen, 2<<20)
	n := 0
	for _, p := range append(files, gen) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			checkClassify(t, sc.Bytes(), false)
			checkClassify(t, sc.Bytes(), true)
			n++
		}
		f.Close()
	}
	for _, l := range classifyCases {
		checkClassify(t, []byte(l), false)
		checkClassify(t, []byte(l), true)
	}
	if n < 100 {
		t.Fatalf("only %d lines read", n)
	}
}

// classifyCases are lines whose shape a real transcript does not have:
// repeated, escaped and mistyped keys.
var classifyCases = []string{
	`{"type":"user","type":"assistant","uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","message":{"content":"x","content":[]},"message":{"model":"m","content":[{"type":"text","type":"tool_use","id":"i","id":"j","name":"Read","input":{"file_path":"/a","file_path":"/b"}}]}}`,
	`{"typ\u0065":"user","uuid":"0445c8da-a531-4ad2-bbf4-7b32952ebb69","parentUuid":"0445C8DA-A531-4ad2-bbf4-7b32952ebb69","sessionId":"s","timestamp":"t","isSidechain":true,"version":"2\u002e1","message":{"content":"\u003ccommand-name>x"}}`,
	`{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","message":{"content":[{"type":"tool_result","tool_use_id":"t\"1","content":[{"type":"text","text":"r"}]},"str",[1],{"type":"image"},{"type":"mystery"}]}}`,
	`{"type":"attachment","rendered":"r","attachment":{"a":1},"uuid":"u","parentUuid":"p","sessionId":"s","timestamp":"t","isSidechain":false,"version":"1"}`,
	`{"type":"attachment","attachment":{"a":1},"rendered":"r","uuid":"u","parentUuid":"p"}`,
	`{"type":"system","subtype":"compact_boundary","subtype":"other","uuid":"u","parentUuid":null,"logicalParentUuid":"l","leafUuid":"x"}`,
	`{"type":"summary","leafUuid":"0445c8da-a531-4ad2-bbf4-7b32952ebb69","uuid":"u"}`,
	`{"type":"weird","uuid":"","parentUuid":"p"}`, `{"type":5,"uuid":"u"}`, `{"uuid":"u"}`, `[1]`, `"s"`, `{}`,
	`{"type":"assistant","uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","isApiErrorMessage":true,"message":{"model":"<synthetic>","content":7}}`,
	`{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","promptSource":"typed","promptSource":"auto","message":"no"}`,
	`{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","timestamp":"t","isSidechain":false,"version":"1","promptSource":"typed","message":{"content":"  hi "},"toolUseResult":{"x":[1,2]}}`,
}

// FuzzClassify: classify and the gjson reading agree on any valid line.
func FuzzClassify(f *testing.F) {
	for _, l := range classifyCases {
		f.Add([]byte(l), false)
	}
	b, _ := session("2.1.332")
	for _, l := range strings.Split(b.String(), "\n") {
		f.Add([]byte(l), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, allowUnknown bool) {
		checkClassify(t, line, allowUnknown)
	})
}

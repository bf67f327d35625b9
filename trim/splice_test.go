package trim

import (
	"bufio"
	"bytes"
	"testing"
)

// spliced is what writeEdited writes for line.
func spliced(t *testing.T, p *Plan, line string, e *edit) string {
	t.Helper()
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	if err := p.writeEdited(w, []byte(line), e); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return out.String()
}

func TestSpliceMatchesSJSON(t *testing.T) {
	p := &Plan{sr: newScanResult()}
	u := p.sr.uuids.intern("0445c8da-a531-4ad2-bbf4-7b32952ebb69")
	odd := p.sr.uuids.intern(`odd "id" \ é`)
	for _, c := range []struct {
		line string
		e    edit
	}{
		{`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb \"q\" ]}"}]},"toolUseResult":{"stdout":"x\\y"}}`,
			edit{trimBlocks: []int{0}, trimTUR: true}},
		{`{"toolUseResult": "first" ,"message" : {"content" : [ {"type":"text","text":"hi"} , {"content":[{"type":"text","text":"r"}],"type":"tool_result"} ]}, "toolUseResult":"dup"}`,
			edit{trimBlocks: []int{1}, trimTUR: true}},
		{`{"message":{"content":[{"type":"tool_result","content":"one"},{"type":"tool_result","content":"two","content":"dup"}]}}`,
			edit{trimBlocks: []int{1, 0}}},
		{`{"message":{"content":"é\u00e9 plain"},"toolUseResult":[1,2,{"a":"}"}]}`,
			edit{trimTUR: true}},
		{`{"parentUuid":"a","uuid":"b","message":{"content":[{"type":"tool_result","content":"x"}]},"parentUuid":"dup"}`,
			edit{relink: true, parent: u, trimBlocks: []int{0}}},
		{`{"parentUuid" : "a","uuid":"b"}`, edit{relink: true}},
		{`{"type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":"z","uuid":"b"}`,
			edit{relinkLogical: true, logical: odd}},
		{`{"type":"summary","leafUuid":"gone","summary":"s"}`, edit{relinkLeaf: true, leaf: u}},
		{`{"type":"last-prompt","leafUuid":"gone"}`, edit{relinkLeaf: true}},
	} {
		want, err := p.sjsonEdit([]byte(c.line), &c.e)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.editSpans([]byte(c.line), &c.e); !ok {
			t.Errorf("editSpans(%s) fell back to sjson", c.line)
		}
		if got := spliced(t, p, c.line, &c.e); got != string(want) {
			t.Errorf("writeEdited(%s) = %s\nwant %s", c.line, got, want)
		}
	}
	// Shapes the raw walk leaves to sjson: an escaped key, a missing block
	// or key. writeEdited still writes what sjson makes of them.
	for _, c := range []struct {
		line string
		e    edit
	}{
		{`{"tool\u0055seResult":"x","toolUseResult":"y"}`, edit{trimTUR: true}},
		{`{"message":{"content":[]}}`, edit{trimBlocks: []int{0}}},
		{`{"uuid":"b","parent\u0055uid":"a"}`, edit{relink: true, parent: u}},
		{`{"uuid":"b"}`, edit{relink: true, parent: u}},
	} {
		if spans, ok := p.editSpans([]byte(c.line), &c.e); ok {
			t.Errorf("editSpans(%s) = %v, want a fallback", c.line, spans)
		}
		want, err := p.sjsonEdit([]byte(c.line), &c.e)
		if err != nil {
			t.Fatal(err)
		}
		if got := spliced(t, p, c.line, &c.e); got != string(want) {
			t.Errorf("writeEdited(%s) = %s\nwant %s", c.line, got, want)
		}
	}
}

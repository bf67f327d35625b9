package trim

import (
	"strconv"
	"testing"

	"github.com/tidwall/sjson"
)

// sjsonEdit is the general path applyEdit falls back to: the bytes the
// raw splice must reproduce.
func sjsonEdit(t *testing.T, line string, e *edit) string {
	t.Helper()
	out := []byte(line)
	var err error
	for _, b := range e.trimBlocks {
		path := "message.content." + strconv.Itoa(b) + ".content"
		n := len(gjsonRaw(out, path))
		if out, err = sjson.SetRawBytes(out, path, []byte(strconv.Quote(Marker(int64(n))))); err != nil {
			t.Fatal(err)
		}
	}
	if e.trimTUR {
		n := len(gjsonRaw(out, "toolUseResult"))
		if out, err = sjson.SetRawBytes(out, "toolUseResult", []byte(strconv.Quote(Marker(int64(n))))); err != nil {
			t.Fatal(err)
		}
	}
	return string(out)
}

func TestSpliceMarkersMatchesSJSON(t *testing.T) {
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
	} {
		want := sjsonEdit(t, c.line, &c.e)
		got, ok := spliceMarkers([]byte(c.line), &c.e, nil)
		if !ok || string(got) != want {
			t.Errorf("spliceMarkers(%s) = %s, %v\nwant %s", c.line, got, ok, want)
		}
	}
	// Shapes the raw walk leaves to sjson: an escaped key, a missing block.
	for _, c := range []struct {
		line string
		e    edit
	}{
		{`{"tool\u0055seResult":"x","toolUseResult":"y"}`, edit{trimTUR: true}},
		{`{"message":{"content":[]}}`, edit{trimBlocks: []int{0}}},
	} {
		if got, ok := spliceMarkers([]byte(c.line), &c.e, nil); ok {
			t.Errorf("spliceMarkers(%s) = %s, want a fallback", c.line, got)
		}
	}
}

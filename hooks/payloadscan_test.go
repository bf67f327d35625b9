package hooks

import (
	"bytes"
	"testing"
)

// The scanner takes runs of string bytes in one step; the result must not
// depend on where the reads split the payload (an escape, a quote or the
// MaxPayloadField boundary at a chunk's edge).
func TestPayloadScannerChunking(t *testing.T) {
	big := bigPayload(3 << 20)
	for i, payload := range [][]byte{
		big,
		[]byte(`{"a":"x\\\"}","b":{"c":["\\\\",1]},"d":"` + string(bytes.Repeat([]byte("y"), MaxPayloadField)) + `","e":"z"}`),
		[]byte(`{"a":"x\\\"}","b":{"c":["\\\\",1]},"d":"` + string(bytes.Repeat([]byte("y"), MaxPayloadField-7)) + `","e":"z"}`),
		[]byte(`{"session_id":"s","tool_response":{"a":[1,"}"]}}`),
	} {
		whole := newPayloadScanner(DefaultReadLimits.Max)
		whole.feed(payload)
		want := whole.payload()
		if i == 1 && string(want) != `{"a":"x\\\"}","b":{"c":["\\\\",1]},"e":"z"}` {
			t.Errorf("member over MaxPayloadField: kept %.200s", want)
		}
		if (i == 2 || i == 3) && !bytes.Equal(want, payload) {
			t.Errorf("payload %d changed: %.200s", i, want)
		}
		for _, size := range []int{1, 2, 3, 7, 4096, MaxPayloadField - 1, MaxPayloadField + 1} {
			sc := newPayloadScanner(DefaultReadLimits.Max)
			for off := 0; off < len(payload) && !sc.done; off += size {
				sc.feed(payload[off:min(off+size, len(payload))])
			}
			if got := sc.payload(); !bytes.Equal(got, want) || sc.done != whole.done {
				t.Errorf("%d-byte payload in %d-byte chunks: %d bytes (done %v), want %d (done %v)",
					len(payload), size, len(got), sc.done, len(want), whole.done)
			}
		}
	}
}

// Past rawMax the payload is rebuilt from the kept members: whitespace
// inside them kept, blank and oversized ones left out.
func TestPayloadScannerRebuildsFromMembers(t *testing.T) {
	for _, c := range []struct {
		max      int
		in, want string
	}{
		{10, `{ "a" : 1 , "b":[1, 2] ,"c":2, }`, `{ "a" : 1 ,"c":2}`},
		{12, `{"a":"\"}",` + "\n" + `"b":{"c":"d"}}`, `{"a":"\"}"}`},
		{16, `{"a":"\"}",` + "\n" + `"b":{"c":"d"}}`, `{"a":"\"}",` + "\n" + `"b":{"c":"d"}}`},
		{8, `{"a":1,"b":"long value","c":3}`, `{"a":1,"c":3}`},
	} {
		sc := newPayloadScanner(c.max)
		sc.feed([]byte(c.in))
		if got := string(sc.payload()); got != c.want || !sc.done {
			t.Errorf("%q (max %d): %q (done %v), want %q", c.in, c.max, got, sc.done, c.want)
		}
	}
}

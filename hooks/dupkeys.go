package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// checkDuplicateKeys refuses an object with the same key twice, at any
// depth. Claude Code's JSON.parse keeps the last one while an in-place
// edit (sjson, gjson) reads and changes the first, so tether would report
// hooks "added" that never take effect. data is known to be valid JSON.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One key set per open object; nil for an open array.
	var stack []map[string]bool
	expectKey := false
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil // end of input (validity was checked before)
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = true
				continue
			case '[':
				stack = append(stack, nil)
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey {
				keys := stack[len(stack)-1]
				if keys[t] {
					line := 1 + bytes.Count(data[:off], []byte("\n"))
					if i := bytes.IndexByte(data[off:], '"'); i >= 0 {
						line = 1 + bytes.Count(data[:int(off)+i], []byte("\n"))
					}
					return &ParseError{Line: line, Msg: fmt.Sprintf("duplicate key %q (Claude Code would read only the last one)", t)}
				}
				keys[t] = true
				expectKey = false
				continue
			}
		}
		// After a value inside an object the next token is a key.
		expectKey = len(stack) > 0 && stack[len(stack)-1] != nil
	}
}

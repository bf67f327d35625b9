package picker

import (
	"os"
	"strings"
	"testing"
)

// docs/picker.md's key table is KeyTable's output: it cannot drift from the
// keys the picker handles.
func TestDocsKeyTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/picker.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), KeyTable()) {
		t.Errorf("docs/picker.md's key table is out of date; it should read:\n%s", KeyTable())
	}
}

package picker

import (
	"os"
	"strings"
	"testing"
)

// The README's key table is KeyTable's output: it cannot drift from the
// keys the picker handles.
func TestREADMEKeyTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), KeyTable()) {
		t.Errorf("README's Picker key table is out of date; it should read:\n%s", KeyTable())
	}
}

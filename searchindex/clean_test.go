package searchindex

import "testing"

func TestCleanDropsMarkersAndNUL(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":          "plain text",
		"a\x00b":              "a b",
		"a" + markOpen + "b":  "a b",
		"a" + markClose + "b": "a b",
		"\x00\x02\x03 ü \x01": "    ü \x01",
		"":                    "",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

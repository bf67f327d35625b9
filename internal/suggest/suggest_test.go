package suggest

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"harness", "id", "cost", "summary", "title"}
	for typed, want := range map[string]string{
		"cots":    "cost",    // a transposition
		"harnes":  "harness", // a letter short
		"summ":    "summary", // a prefix
		"xyzzy":   "",        // nothing close
		"it":      "",        // too short for its distance to mean a typo
		"summary": "summary",
	} {
		if got := Closest(typed, cands); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
	if DidYouMean("") != "" || DidYouMean("cost") != ` — did you mean "cost"?` {
		t.Errorf("DidYouMean: %q %q", DidYouMean(""), DidYouMean("cost"))
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"cost", "cost", 0}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"cots", "cost", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}, {"修复", "复修", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

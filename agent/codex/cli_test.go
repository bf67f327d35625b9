package codex

import (
	"reflect"
	"testing"
)

func TestParseResume(t *testing.T) {
	cases := []struct {
		args        []string
		kind, id    string
		fork, print bool
		fresh       []string
	}{
		{[]string{"resume", "019a-id", "--model", "m"}, "id", "019a-id", false, false, []string{"--model", "m"}},
		{[]string{"exec", "--skip-git-repo-check", "resume", "019a-id", "go on"}, "id", "019a-id", false, true, []string{"exec", "--skip-git-repo-check", "go on"}},
		{[]string{"resume", "--last"}, "last", "", false, false, []string{}},
		{[]string{"exec", "say resume please"}, "", "", false, true, []string{"exec", "say resume please"}},
	}
	for _, c := range cases {
		r := New("").ParseResume(c.args)
		if r.Kind != c.kind || r.ID != c.id || r.Fork != c.fork || r.Print != c.print || !reflect.DeepEqual(r.Fresh, c.fresh) || r.OneDocument {
			t.Errorf("%q: got %+v fresh %q", c.args, r, r.Fresh)
		}
	}
	if got := New("").ParseResume([]string{"exec", "resume", "019a", "go on"}).WithID([]string{"exec", "resume", "019a", "go on"}, "019a-full"); !reflect.DeepEqual(got, []string{"exec", "resume", "019a-full", "go on"}) {
		t.Errorf("WithID: %q", got)
	}
}

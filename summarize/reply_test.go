package summarize

import (
	"errors"
	"strings"
	"testing"
)

func TestParseReply(t *testing.T) {
	ok := `{"title":"Fix the parser","objective":"o","completed":"c","currentWork":"w","likelyNext":"n"}`
	good := map[string]string{
		"plain":  ok,
		"fenced": "```json\n" + ok + "\n```",
		"spaced": "\n  " + ok + "  \n",
		"extra":  `{"title":"Fix the parser","objective":"o","completed":"c","currentWork":"w","likelyNext":"n","confidence":"high"}`,
	}
	for name, in := range good {
		s, err := ParseReply(in)
		if err != nil || s.Title != "Fix the parser" || s.LikelyNext != "n" {
			t.Errorf("%s: %+v %v", name, s, err)
		}
	}
	bad := map[string]string{
		"prose":        "Here is the summary: " + ok,
		"two objects":  ok + ok,
		"missing":      `{"title":"t","objective":"o","completed":"c","currentWork":"w"}`,
		"not a string": `{"title":"t","objective":"o","completed":["c"],"currentWork":"w","likelyNext":"n"}`,
		"null":         `{"title":"t","objective":"o","completed":null,"currentWork":"w","likelyNext":"n"}`,
		"long title":   `{"title":"` + strings.Repeat("x", 81) + `","objective":"o","completed":"c","currentWork":"w","likelyNext":"n"}`,
		"empty title":  `{"title":"  ","objective":"o","completed":"c","currentWork":"w","likelyNext":"n"}`,
		"array":        `[` + ok + `]`,
		"empty":        ``,
	}
	for name, in := range bad {
		if s, err := ParseReply(in); err == nil || !errors.Is(err, ErrInvalidReply) {
			t.Errorf("%s accepted: %+v %v", name, s, err)
		}
	}
	// 80 characters (not bytes) is fine.
	if _, err := ParseReply(`{"title":"` + strings.Repeat("é", 80) + `","objective":"","completed":"","currentWork":"","likelyNext":""}`); err != nil {
		t.Errorf("80-character title: %v", err)
	}
}

func TestParseReplyCleans(t *testing.T) {
	s, err := ParseReply(`{"title":"a\u001b[2Jb\u202e\u0085c","objective":"line1\nline2","completed":"","currentWork":"","likelyNext":""}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "a[2Jbc" || s.Objective != "line1\nline2" {
		t.Errorf("%q %q", s.Title, s.Objective)
	}
}

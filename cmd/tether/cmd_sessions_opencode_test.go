package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// An OpenCode session in $XDG_DATA_HOME/opencode/opencode.db is listed
// by `tether sessions --json` (harness opencode, in the list schema),
// filtered by --harness opencode, and shown by id.
func TestSessionsListsOpenCode(t *testing.T) {
	ta := newTestApp(t)
	withSessions(t, ta, "")
	sessiontest.OpenCodeDB(t, filepath.Join(ta.env["XDG_DATA_HOME"], "opencode"))
	for _, args := range [][]string{{"sessions", "--json"}, {"sessions", "--json", "--harness", "opencode"}} {
		ta.out.Reset()
		if code := ta.run(args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, ta.err)
		}
		validate(t, "list", ta.out.Bytes())
		var doc struct {
			Sessions []struct {
				Harness, ID, Cwd, Title string
				Resume                  struct{ Argv []string }
			}
		}
		if err := json.Unmarshal(ta.out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		found, others := false, 0
		for _, s := range doc.Sessions {
			if s.Harness != "opencode" {
				others++
				continue
			}
			if s.ID == sessiontest.SampleOpenCode {
				found = s.Cwd == "/home/example/proj" && s.Title == "tool bash not offered" &&
					strings.Join(s.Resume.Argv, " ") == "opencode --session "+s.ID
			}
		}
		if !found || (len(args) == 4) != (others == 0) {
			t.Errorf("%q: opencode session found %v, %d others:\n%s", args, found, others, ta.out)
		}
	}
	ta.out.Reset()
	if code := ta.run("sessions", "show", "--json", sessiontest.SampleOpenCode); code != 0 {
		t.Fatalf("show: exit %d: %s", code, ta.err)
	}
	m := validate(t, "show", ta.out.Bytes())
	if !strings.Contains(ta.out.String(), `"humanPrompts": 3`) && !strings.Contains(ta.out.String(), `"humanPrompts":3`) {
		t.Errorf("show: %v", m)
	}
}

package opencodesessions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// The JSON storage of OpenCode before 1.2 (layout from OpenCode's
// source, see StorageDir: no real sample) is listed beside the database,
// a session in both once (the database's), and shown and searched.
func TestLegacyStorage(t *testing.T) {
	data := t.TempDir()
	sessiontest.OpenCodeDB(t, data)
	st := filepath.Join(data, "storage")
	w := func(rel, text string) { sessiontest.WriteFile(t, filepath.Join(st, rel), []byte(text)) }
	w("project/abc123.json", `{"id":"abc123","worktree":"/home/example/old","vcs":"git","time":{"created":1760000000000}}`)
	w("session/abc123/ses_1aaa.json", `{"id":"ses_1aaa","version":"0.15.0","projectID":"abc123","directory":"/home/example/old",
		"title":"old json session","time":{"created":1760000000000,"updated":1760000090000}}`)
	// Imported on upgrade: the database has it.
	w("session/abc123/"+sessiontest.SampleOpenCode+".json", `{"id":"`+sessiontest.SampleOpenCode+`","projectID":"abc123","directory":"/x","title":"stale copy","time":{"created":1,"updated":2}}`)
	w("message/ses_1aaa/msg_01.json", `{"id":"msg_01","sessionID":"ses_1aaa","role":"user","time":{"created":1760000001000}}`)
	w("part/msg_01/prt_01.json", `{"id":"prt_01","sessionID":"ses_1aaa","messageID":"msg_01","type":"text","text":"rename the legacy widget"}`)
	w("message/ses_1aaa/msg_02.json", `{"id":"msg_02","sessionID":"ses_1aaa","role":"assistant","modelID":"fake-model","providerID":"fake",
		"time":{"created":1760000002000},"cost":0.5,"tokens":{"input":100,"output":20,"reasoning":0,"cache":{"read":880,"write":0}}}`)
	w("part/msg_02/prt_02.json", `{"id":"prt_02","type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"/home/example/old/w.go"},"output":"x"}}`)
	w("part/msg_02/prt_03.json", `{"id":"prt_03","type":"text","text":"Renamed it."}`)
	w("session/abc123/ses_broken.json", `{"id":`)
	r := reader(data)
	m, diags := list(t, r, false)
	if len(m) != 3 || len(diags) != 1 || filepath.Base(diags[0].Path) != "ses_broken.json" {
		t.Fatalf("%d sessions, diags %+v", len(m), diags)
	}
	if m[sessiontest.SampleOpenCode].Title != "tool bash not offered" {
		t.Errorf("the database's copy is not the one listed: %q", m[sessiontest.SampleOpenCode].Title)
	}
	s := m["ses_1aaa"]
	if s.Title != "old json session" || s.Cwd != "/home/example/old" || s.CLIVersion != "0.15.0" || s.Model != "fake-model" ||
		s.Source != filepath.Join(st, "session/abc123/ses_1aaa.json") {
		t.Errorf("listed: %+v", s)
	}
	if s.Counts == nil || *s.Counts != (agent.Counts{HumanPrompts: 1, Messages: 2, ToolCalls: 1}) ||
		s.Tokens == nil || s.Tokens.Input != 100 || s.Tokens.Cost != 0.5 || s.Context == nil || s.Context.Tokens != 1000 {
		t.Errorf("counts %+v tokens %+v context %+v", s.Counts, s.Tokens, s.Context)
	}
	full, err := r.Get(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if *full.Counts != *s.Counts || full.FirstPrompt != "rename the legacy widget" || len(full.Evidence.FilesRead) != 1 {
		t.Errorf("shown: %+v %q %+v", full.Counts, full.FirstPrompt, full.Evidence)
	}
	var got []agent.Text
	if err := agent.SessionTextsOf(agent.OpenCode).SessionTexts(context.Background(), &s, true, nil, func(x agent.Text) { got = append(got, x) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Text != "rename the legacy widget" || got[2].Text != "Renamed it." {
		t.Errorf("texts: %+v", got)
	}
}

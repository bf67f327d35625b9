package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
)

func TestIdentityJSON(t *testing.T) {
	ta := newTestApp(t)
	real := filepath.Join(ta.home, "src", "my project")
	os.MkdirAll(real, 0o755)
	link := filepath.Join(ta.home, "link")
	os.Symlink(real, link)
	// A session started through the symlink, stranded in its own project
	// directory.
	linkName, _ := claude.ProjectDirName(link)
	pd := filepath.Join(ta.home, ".claude", "projects", linkName)
	os.MkdirAll(pd, 0o700)
	os.WriteFile(filepath.Join(pd, "s1.jsonl"), []byte(`{"type":"user","cwd":"`+link+`","uuid":"u"}`+"\n"), 0o600)

	if code := ta.run("identity", "--json", link+"/"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	var rep struct {
		Raw        string `json:"raw"`
		Root       string `json:"root"`
		FellBack   bool   `json:"fellBack"`
		ProjectDir struct {
			Name   string `json:"name"`
			Exists bool   `json:"exists"`
		} `json:"projectDir"`
		Other []struct {
			Name     string `json:"name"`
			Match    string `json:"match"`
			Sessions int    `json:"sessions"`
		} `json:"otherProjectDirs"`
	}
	if err := json.Unmarshal(ta.out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, ta.out)
	}
	wantName, _ := claude.ProjectDirName(real)
	if rep.Raw != link+"/" || rep.Root != real || rep.FellBack || rep.ProjectDir.Name != wantName || rep.ProjectDir.Exists {
		t.Errorf("report: %+v", rep)
	}
	if len(rep.Other) != 1 || rep.Other[0].Name != linkName || rep.Other[0].Sessions != 1 {
		t.Errorf("stranded: %+v", rep.Other)
	}

	// The human view says the same.
	ta.out.Reset()
	if code := ta.run("identity", link); code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"root:         " + real, linkName, "1 session"} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("human view lacks %q:\n%s", want, ta.out)
		}
	}
}

func TestIdentityPinnedAndFallback(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_IDENTITY_ROOT"] = "/home/example/src/project"
	if code := ta.run("identity", "--json"); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(ta.out.String(), `"pinned": true`) || !strings.Contains(ta.out.String(), `"root": "/home/example/src/project"`) {
		t.Errorf("pinned: %s", ta.out)
	}
	ta.out.Reset()
	if code := ta.run("identity", "/home/example/nope/../src/"); code != 0 {
		t.Fatal(code)
	}
	if !strings.Contains(ta.out.String(), "fell back") || !strings.Contains(ta.out.String(), "/home/example/src\n") {
		t.Errorf("fallback: %s", ta.out)
	}
}

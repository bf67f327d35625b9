package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14 item 7: with [statusline] chain = true, tether statusline runs
// the statusLine a forced install replaced, with the same stdin, and puts
// its own segment beside that output; a failing or slow command leaves
// tether's segment alone.
func TestStatuslineChainsThePreviousCommand(t *testing.T) {
	ta := newTestApp(t)
	withTetherOnPath(t, ta)
	got := filepath.Join(ta.home, "stdin-seen")
	mine := filepath.Join(ta.home, "my-statusline.sh")
	os.WriteFile(mine, []byte("#!/bin/sh\ncat > '"+got+"'\nprintf 'MINE line1\\nMINE line2\\n'\n"), 0o755)
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"statusLine":{"type":"command","command":"`+mine+`"}}`), 0o600)
	if code := ta.run("hooks", "install", "--claude-version", "2.1.332", "--statusline", "--force"); code != 0 {
		t.Fatalf("install: %s", ta.err)
	}
	cfg := filepath.Join(ta.home, "config", "tether", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("[statusline]\nchain = true\n"), 0o600)

	payload := loadStatusInputs(t)[0]
	ta.IO.In = strings.NewReader(payload)
	ta.out.Reset()
	if code := ta.run("statusline"); code != 0 {
		t.Fatal(ta.err)
	}
	want := "MINE line1 │ Opus 5.5 · ctx ░░░░░░░░ 0.1% (1.1k/1M)\nMINE line2\n"
	if ta.out.String() != want {
		t.Errorf("chained output %q, want %q", ta.out, want)
	}
	if seen, _ := os.ReadFile(got); strings.TrimSpace(string(seen)) != strings.TrimSpace(payload) {
		t.Errorf("the chained command got stdin %q", seen)
	}

	// Failing, then too slow: tether's segment alone, exit 0.
	for _, c := range []string{"command = \"exit 3\"", "command = \"sleep 30; echo late\"\ntimeout_ms = 200"} {
		ta := newTestApp(t) // the config is read once per process
		cfg := filepath.Join(ta.home, "config", "tether", "config.toml")
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		os.WriteFile(cfg, []byte("[statusline]\n"+c+"\n"), 0o600)
		ta.IO.In = strings.NewReader(payload)
		ta.out.Reset()
		if code := ta.run("statusline"); code != 0 || ta.out.String() != "Opus 5.5 · ctx ░░░░░░░░ 0.1% (1.1k/1M)\n" {
			t.Errorf("%s: exit %d, %q", c, code, ta.out)
		}
	}
}

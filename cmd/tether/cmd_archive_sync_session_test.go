package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// `archive sync --session opencode:ID` (what the OpenCode plugin's turn
// end starts in the background) stores that one session's export, read
// by id; again unchanged, it exports nothing; an unknown id, a Claude
// session and a disabled archive are refused. Old rate-limit stamps go.
func TestArchiveSyncOneSession(t *testing.T) {
	ta := newTestApp(t)
	sessiontest.OpenCodeDB(t, filepath.Join(ta.home, ".local", "share", "opencode"))
	id := sessiontest.SampleOpenCode
	bin := filepath.Join(ta.home, "opencode")
	calls := filepath.Join(ta.home, "calls")
	os.WriteFile(bin, []byte("#!/bin/sh\necho \"$*\" >> '"+calls+"'\n"+
		`[ "$1" = export ] && printf '{"info":{"id":"%s"},"messages":[]}\n' "$2"`+"\n"), 0o700)
	ta.env["TETHER_OPENCODE_BIN"] = bin
	stamps := hot.ExportStampDir(ta.Loc.StateDir)
	os.MkdirAll(stamps, 0o700)
	old, fresh := filepath.Join(stamps, "opencode-ses_old"), filepath.Join(stamps, "opencode-"+id)
	for _, p := range []string{old, fresh} {
		os.WriteFile(p, nil, 0o600)
	}
	long := time.Now().Add(-48 * time.Hour)
	os.Chtimes(old, long, long)

	if code := ta.run("archive", "sync", "--session", "opencode:"+id); code != 0 || ta.out.String() != "exported opencode:"+id+"\n" {
		t.Fatalf("exit %d, out %q, err %q", code, ta.out, ta.err)
	}
	stored := filepath.Join(ta.Loc.ArchiveDir(), "opencode", id+".json")
	if fi, err := os.Stat(stored); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("stored export: %v %v", fi, err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("a stamp two days old was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a current stamp was removed")
	}
	ta.out.Reset()
	if code := ta.run("archive", "sync", "--session", id); code != 0 || ta.out.String() != "unchanged opencode:"+id+"\n" {
		t.Errorf("again: exit %d, out %q, err %q", code, ta.out, ta.err)
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "export") != 1 {
		t.Errorf("opencode ran: %q", b)
	}
	for args, want := range map[string]int{"opencode:ses_nope": 3, "claude-code:81d11e28": 2, "opencode:": 2} {
		if code := ta.run("archive", "sync", "--session", args); code != want {
			t.Errorf("%s: exit %d, want %d (%s)", args, code, want, ta.err)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/state"
)

// returnsPromptly runs f and fails the test when it has not returned
// after a few seconds: a hang check (a FIFO opened for reading blocks
// until a writer comes), not a timing assertion. It then opens the FIFOs
// both ways, so that a blocked f can end with the test binary.
func returnsPromptly(t *testing.T, what string, fifos []string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		for _, p := range fifos {
			// A writer for a blocked reader, a reader for a blocked writer.
			for _, flag := range []int{os.O_WRONLY, os.O_RDONLY} {
				if f, err := os.OpenFile(p, flag|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
			}
		}
		t.Fatalf("%s blocks on a FIFO", what)
	}
}

func mkfifos(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
}

// TestCatalogCacheFIFO (issue 23, item 10): tether's caches planted as
// FIFOs (catalog-*.gob, catalog-archive-state.gob, search.db-listed) are
// not waited on by list, show, search or doctor.
func TestCatalogCacheFIFO(t *testing.T) {
	ta := newTestApp(t)
	id := "0b6e1a2c-1111-4222-8333-444455556666"
	proj := filepath.Join(ta.home, ".claude", "projects", "-home-example-p")
	os.MkdirAll(proj, 0o700)
	os.WriteFile(filepath.Join(proj, id+".jsonl"), []byte(`{"type":"user","cwd":"/home/example/p","sessionId":"`+id+`","timestamp":"2026-11-30T10:00:00Z","message":{"role":"user","content":"fix the flaky test"}}`+"\n"), 0o600)
	fifos := append(catalog.CacheFiles(ta.Loc.CacheDir), catalog.ArchiveCacheFiles(ta.Loc.CacheDir)...)
	fifos = append(fifos, searchIndexPath(ta.Loc)+"-listed")
	mkfifos(t, fifos...)
	for _, args := range [][]string{{"sessions", "list"}, {"sessions", "show", id}, {"sessions", "search", "flaky"}, {"doctor"}} {
		ta.out.Reset()
		ta.err.Reset()
		returnsPromptly(t, strings.Join(args, " "), fifos, func() { ta.run(args...) })
		if len(args) > 1 && args[1] == "list" && !strings.Contains(ta.out.String(), "0b6e1a2c") {
			t.Errorf("list with FIFO caches: %q %q, want the session", ta.out.String(), ta.err.String())
		}
	}
}

// TestEventLogFIFO (issue 23, item 10): events.jsonl planted as a FIFO
// hangs neither a hook (which writes it) nor 'tether log' (which reads it:
// a one-line error naming it).
func TestEventLogFIFO(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_LOG_LEVEL"] = "debug"
	logPath := state.EventLogPath(ta.Loc.StateDir)
	mkfifos(t, logPath)
	hook := func() {
		ta.IO.In = strings.NewReader(`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"` + ta.home + `"}`)
		if code := ta.run("hook", "PostToolUse"); code != 0 {
			t.Errorf("hook: exit %d", code)
		}
	}
	// Nobody reading: an open for writing would wait for a reader.
	returnsPromptly(t, "hook", []string{logPath}, hook)
	// A reader: an open for writing would succeed, and write into it.
	r, err := os.OpenFile(logPath, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	returnsPromptly(t, "hook", nil, hook)
	var buf [4096]byte
	if n, _ := r.Read(buf[:]); n > 0 {
		t.Errorf("the hook wrote a record into a FIFO: %q", buf[:n])
	}
	r.Close()
	ta.err.Reset()
	returnsPromptly(t, "tether log", []string{logPath}, func() {
		if code := ta.run("log"); code == 0 {
			t.Error("log over a FIFO: exit 0")
		}
	})
	if msg := ta.err.String(); strings.Count(msg, "\n") != 1 || !strings.Contains(msg, logPath) || !strings.Contains(msg, "FIFO") {
		t.Errorf("log over a FIFO: %q, want one line naming it", msg)
	}
}

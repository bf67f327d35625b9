package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/shellinit/compindex"
)

func TestDoctorShellChecks(t *testing.T) {
	ta := newTestApp(t)
	self, _ := os.Executable()
	run := func(env map[string]string, lookPath func(string) (string, error), fix bool) string {
		ta.out.Reset()
		runDoctor(doctorOptions{
			IO: ta.IO, Loc: ta.Loc, Root: ta.Root(), LoadConf: ta.Config,
			Executable: func() (string, error) { return self, nil }, LookPath: lookPath, Fix: fix,
			Shell: shellEnv{
				Getenv: func(k string) string { return env[k] }, PPID: 4242, Now: time.Now(),
				RefreshIndex: func() error { return ta.refreshCompletionIndex(context.Background()) },
			},
		})
		return ta.out.String()
	}
	realClaude := func(p string) (string, error) {
		if p == "claude" {
			return "/usr/local/bin/claude", nil
		}
		return "", os.ErrNotExist
	}
	out := run(map[string]string{"SHELL": "/usr/bin/zsh"}, realClaude, false)
	for _, want := range []string{
		`warn  shell init not loaded in this shell — add eval "$(tether init zsh)" to ~/.zshrc`,
		"warn  claude     /usr/local/bin/claude runs without tether's wrapper",
		"ok    codex      not installed",
		"warn  completion no session index",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	loaded := map[string]string{"TETHER_SHELL": "fish", "TETHER_SHELL_PID": "4242", "TETHER_SHELL_FEATURES": "wrap,prompt,completion"}
	out = run(loaded, realClaude, false)
	for _, want := range []string{"ok    shell init fish (wrap,prompt,completion)", "ok    claude     a shell function running 'tether run claude'"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	loaded["TETHER_SHELL_PID"] = "1"
	if out = run(loaded, realClaude, false); !strings.Contains(out, "warn  shell init fish integration inherited from another process (pid 1)") ||
		!strings.Contains(out, "warn  claude") {
		t.Errorf("inherited:\n%s", out)
	}
	// The shim: claude on PATH is this binary.
	out = run(nil, func(string) (string, error) { return self, nil }, false)
	if !strings.Contains(out, "ok    claude     "+self+" is tether's shim") {
		t.Errorf("shim:\n%s", out)
	}
	// --fix builds the completion index.
	ta.indexSource = func(context.Context) ([]compindex.Entry, error) {
		return []compindex.Entry{{Harness: "codex", ID: "x", LastActivity: time.Now()}}, nil
	}
	out = run(nil, realClaude, true)
	if !strings.Contains(out, "ok    completion no session index") || !strings.Contains(out, "fixed completion") {
		t.Errorf("--fix:\n%s", out)
	}
	if _, err := os.Stat(compindex.Path(ta.Loc.CacheDir)); err != nil {
		t.Errorf("--fix built no index: %v", err)
	}
}

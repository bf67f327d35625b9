package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHotPathsFIFO (issue 23, item 10): config.toml, the config.json
// earlier tethers kept in the cache, or events.jsonl planted as a FIFO
// hangs none of tether-hot's hook, statusline and
// prompt: each is killed after a few seconds (a hang check, not a
// timing assertion) and must have ended by itself, with status 0 and
// the hook silent.
func TestHotPathsFIFO(t *testing.T) {
	dir, hot := buildHot(t)
	xdg := filepath.Join(dir, "xdg")
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"),
		"XDG_CACHE_HOME="+filepath.Join(xdg, "cache"), "XDG_DATA_HOME="+filepath.Join(xdg, "data"), "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"),
		"TETHER_LOG_LEVEL=debug", "TETHER_IDENTITY_ROOT="+dir)
	cfg := filepath.Join(xdg, "config", "tether", "config.toml")
	events := filepath.Join(xdg, "state", "tether", "events.jsonl")
	copied := filepath.Join(xdg, "cache", "tether", "config.json")
	for _, fifo := range []string{cfg, copied, events} {
		os.RemoveAll(xdg)
		os.MkdirAll(filepath.Dir(fifo), 0o700)
		if fifo == copied {
			os.MkdirAll(filepath.Dir(cfg), 0o700)
			os.WriteFile(cfg, []byte("[log]\nlevel = \"debug\"\n"), 0o600)
		}
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		for _, c := range []struct {
			args  []string
			stdin string
		}{
			{[]string{"hook", "PostToolUse"}, `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"` + dir + `"}`},
			{[]string{"statusline"}, `{"session_id":"s1","model":{"id":"claude-sonnet-4-5"},"workspace":{"current_dir":"` + dir + `"}}`},
			{[]string{"prompt", "--timeout", "10s"}, ""},
		} {
			name := filepath.Base(fifo) + " " + c.args[0]
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			cmd := exec.CommandContext(ctx, hot, c.args...)
			cmd.Env, cmd.Stdin = env, strings.NewReader(c.stdin)
			out, err := cmd.CombinedOutput()
			hung := errors.Is(ctx.Err(), context.DeadlineExceeded)
			cancel()
			if hung {
				t.Errorf("%s: blocks on the FIFO", name)
				continue
			}
			if err != nil || c.args[0] == "hook" && len(out) > 0 {
				t.Errorf("%s: %v %q, want status 0 (and a silent hook)", name, err, out)
			}
		}
	}
}

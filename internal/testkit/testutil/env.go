package testutil

import (
	"os"
	"path/filepath"
	"strings"
)

// isolatedVars are the variables that name a user's directories: a child
// that inherited one of them from the test's own environment would read or
// write the user's real files (issue 23: an inherited XDG_DATA_HOME filled
// the user's archive).
// OPENCODE_DB (OpenCode's database, else under XDG_DATA_HOME) is dropped,
// not set: its default is then under home.
var isolatedVars = []string{"HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "OPENCODE_DB"}

// IsolatedEnv is the environment for a process a test starts: the test's
// own (PATH, TERM, Go's settings) without any TETHER_* variable, with HOME
// = home and every one of isolatedVars under it (home/.claude, home/.codex,
// home/.config, ...), then extra ("K=V", later entries win as in exec.Cmd).
func IsolatedEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TETHER_") || isIsolated(k) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home,
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "CODEX_HOME="+filepath.Join(home, ".codex"),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR="+filepath.Join(home, ".run"))
	return append(env, extra...)
}

func isIsolated(k string) bool {
	for _, v := range isolatedVars {
		if k == v {
			return true
		}
	}
	return false
}

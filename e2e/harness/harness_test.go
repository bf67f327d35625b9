package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

func newEnv(t *testing.T) *Env {
	t.Helper()
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	return NewEnv(t, api)
}

func TestEnvIsMinimalAndPointsAtTheFake(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/real/config")
	t.Setenv("TETHER_TEST_LEAK", "leaked")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "real-token")
	e := newEnv(t)
	res := e.Run(context.Background(), "env", "/usr/bin/env", e.Home)
	if res.ExitCode != 0 {
		t.Fatalf("env: %+v", res)
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		k, v, _ := strings.Cut(l, "=")
		got[k] = v
	}
	want := map[string]string{
		"HOME":                    e.Home,
		"CLAUDE_CONFIG_DIR":       filepath.Join(e.Home, ".claude"),
		"CODEX_HOME":              filepath.Join(e.Home, ".codex"),
		"XDG_CONFIG_HOME":         filepath.Join(e.Home, ".config"),
		"ANTHROPIC_BASE_URL":      e.API.URL(),
		"ANTHROPIC_API_KEY":       AnthropicKey,
		OpenAIKeyEnv:              OpenAIKey,
		"PATH":                    os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER":     "1",
		"CLAUDE_CODE_MAX_RETRIES": "0",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"TETHER_TEST_LEAK", "CLAUDE_CODE_OAUTH_TOKEN", "USER", "GOPATH"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s leaked into the CLI environment", k)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(e.CodexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`model_provider = "fake"`, "[model_providers.fake]", fmt.Sprintf("base_url = %q", e.API.URL()+"/v1"), `wire_api = "responses"`, `env_key = "OPENAI_API_KEY"`} {
		if !strings.Contains(string(cfg), s) {
			t.Errorf("config.toml lacks %s:\n%s", s, cfg)
		}
	}
	e.Setenv("EXTRA", "1")
	e.Setenv("ANTHROPIC_API_KEY", "")
	env := strings.Join(e.Environ(), "\n")
	if !strings.Contains(env, "EXTRA=1") || strings.Contains(env, "ANTHROPIC_API_KEY=") {
		t.Errorf("Setenv: %s", env)
	}
}

func TestRunExitCodeOutputAndTimeout(t *testing.T) {
	e := newEnv(t)
	dir := e.ProjectDir("p")
	res := e.Run(context.Background(), "sh", "/bin/sh", dir, "-c", `pwd; echo err >&2; read x; echo "stdin=[$x]"; exit 3`)
	if res.ExitCode != 3 || res.Err != nil || res.TimedOut {
		t.Errorf("exit = %d err %v", res.ExitCode, res.Err)
	}
	if res.Stdout != dir+"\nstdin=[]\n" || res.Stderr != "err\n" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	e.Timeout = 300 * time.Millisecond
	start := time.Now()
	res = e.Run(context.Background(), "sh", "/bin/sh", dir, "-c", "sleep 30 & sleep 30; wait")
	if !res.TimedOut || res.ExitCode != -1 || res.Err == nil {
		t.Errorf("timeout: %+v", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	res = e.Run(context.Background(), "missing", filepath.Join(dir, "no-such-binary"), dir)
	if res.Err == nil || res.ExitCode != -1 {
		t.Errorf("missing binary: %+v", res)
	}
}

func TestClaudeResultParsing(t *testing.T) {
	r := Result{Stdout: "noise\n{\"type\":\"system\"}\n{\"type\":\"result\",\"result\":\"ok\",\"session_id\":\"s\"}\n{broken\n"}
	if n := len(r.ClaudeEvents()); n != 2 {
		t.Errorf("%d events", n)
	}
	if m, ok := r.ClaudeResult(); !ok || m["result"] != "ok" {
		t.Errorf("result = %v %v", m, ok)
	}
	if _, ok := (Result{Stdout: "{}"}).ClaudeResult(); ok {
		t.Error("result found in output without one")
	}
}

func TestSeedClaudeJSONMerges(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.ClaudeConfigDir, ".claude.json")
	if err := os.WriteFile(path, []byte(`{"userID":"u1","projects":{"/old":{"allowedTools":["Bash"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := e.ProjectDir("trusted")
	e.SeedClaudeJSON(dir, "/old")
	for _, p := range []string{path, filepath.Join(e.Home, ".claude.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var cfg struct {
			UserID                 string
			HasCompletedOnboarding bool
			CustomAPIKeyResponses  struct{ Approved []string } `json:"customApiKeyResponses"`
			Projects               map[string]map[string]any
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		if !cfg.HasCompletedOnboarding || len(cfg.CustomAPIKeyResponses.Approved) != 1 || cfg.Projects[dir]["hasTrustDialogAccepted"] != true || cfg.Projects["/old"]["hasTrustDialogAccepted"] != true {
			t.Errorf("%s: %s", p, b)
		}
		if p == path && (cfg.UserID != "u1" || cfg.Projects["/old"]["allowedTools"] == nil) {
			t.Errorf("existing content lost: %s", b)
		}
	}
}

func TestCleanupEndsDaemonsAndStrays(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not available")
	}
	e := newEnv(t)
	daemonDir := filepath.Join(e.CodexHome, "app-server-daemon")
	if err := os.MkdirAll(daemonDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A "daemon" that records its pid like Codex does, and a stray in its
	// own session that records nothing; both outlive the command.
	res := e.Run(context.Background(), "sh", "/bin/sh", e.Home, "-c", `
setsid sleep 120 </dev/null >/dev/null 2>&1 &
printf '{"pid":%d,"processStartTime":"x"}' $! > "$CODEX_HOME/app-server-daemon/daemon.pid"
setsid sleep 121 </dev/null >/dev/null 2>&1 &
echo $!`)
	if res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
	stray, _ := strconv.Atoi(strings.TrimSpace(res.Stdout))
	daemon := readPidFile(filepath.Join(daemonDir, "daemon.pid"))
	if stray <= 0 || daemon <= 0 {
		t.Fatalf("pids %d %d", stray, daemon)
	}
	gone := func(pid int) bool { return syscall.Kill(pid, 0) != nil || isZombie(pid) }
	time.Sleep(100 * time.Millisecond)
	if gone(stray) || gone(daemon) {
		t.Fatalf("test processes did not start")
	}
	e.Cleanup()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !(gone(stray) && gone(daemon)) {
		time.Sleep(50 * time.Millisecond)
	}
	if !gone(daemon) || !gone(stray) {
		_ = syscall.Kill(daemon, syscall.SIGKILL)
		_ = syscall.Kill(stray, syscall.SIGKILL)
		t.Fatalf("Cleanup left daemon %v, stray %v", !gone(daemon), !gone(stray))
	}
}

// fakeTB records Skip/Fatal instead of stopping the test.
type fakeTB struct {
	testing.TB
	skipped, fatal string
}

func (f *fakeTB) Skip(args ...any)                  { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestCLIsWithoutNpm(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		clisOnce = sync.Once{}
		f := &fakeTB{TB: t}
		CLIs(f)
		if ci == "" && (f.skipped != NpmMissingMessage || f.fatal != "") {
			t.Errorf("CI unset: skipped %q fatal %q", f.skipped, f.fatal)
		}
		if ci == "true" && (f.fatal == "" || !strings.Contains(f.fatal, "npm not found") || f.skipped != "") {
			t.Errorf("CI=true: skipped %q fatal %q", f.skipped, f.fatal)
		}
	}
	clisOnce = sync.Once{}
}

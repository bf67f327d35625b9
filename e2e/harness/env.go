package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// Dummy credentials given to the CLIs (the fake accepts anything).
const (
	AnthropicKey = "sk-ant-test-dummy"
	OpenAIKey    = "sk-openai-test-dummy"
	// OpenAIKeyEnv is the variable the fake Codex provider reads its key
	// from (env_key in config.toml).
	OpenAIKeyEnv = "OPENAI_API_KEY"
)

// DefaultTimeout bounds one CLI run unless Env.Timeout says otherwise.
const DefaultTimeout = 90 * time.Second

// Env is a throw-away home for running the CLIs against a fake API.
type Env struct {
	T   testing.TB
	API *fakeapi.Server

	// Home is the temporary HOME; ClaudeConfigDir = Home/.claude and
	// CodexHome = Home/.codex.
	Home            string
	ClaudeConfigDir string
	CodexHome       string

	// Timeout bounds each Claude/Codex/Run call (DefaultTimeout).
	Timeout time.Duration

	mu    sync.Mutex
	vars  map[string]string
	pgids []int
}

// NewEnv makes a temporary HOME (CLAUDE_CONFIG_DIR = HOME/.claude,
// CODEX_HOME = HOME/.codex, XDG dirs under it), an environment that keeps
// only PATH, LANG and TERM from the test's own, points both CLIs at api, and
// writes $CODEX_HOME/config.toml with a "fake" Responses-API provider. The
// environment is cleaned up (daemons and stray processes ended) when the
// test ends.
func NewEnv(t testing.TB, api *fakeapi.Server) *Env {
	t.Helper()
	home := t.TempDir()
	// Resolve symlinks (macOS /var -> /private/var) so that paths match
	// what the CLIs record.
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	e := &Env{
		T:               t,
		API:             api,
		Home:            home,
		ClaudeConfigDir: filepath.Join(home, ".claude"),
		CodexHome:       filepath.Join(home, ".codex"),
		Timeout:         DefaultTimeout,
	}
	getenv := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	e.vars = map[string]string{
		"PATH":              os.Getenv("PATH"),
		"LANG":              getenv("LANG", "C.UTF-8"),
		"TERM":              getenv("TERM", "dumb"),
		"HOME":              home,
		"CLAUDE_CONFIG_DIR": e.ClaudeConfigDir,
		"CODEX_HOME":        e.CodexHome,
		"XDG_CONFIG_HOME":   filepath.Join(home, ".config"),
		"XDG_STATE_HOME":    filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":    filepath.Join(home, ".cache"),
		"XDG_DATA_HOME":     filepath.Join(home, ".local", "share"),

		"ANTHROPIC_BASE_URL":                       api.URL(),
		"ANTHROPIC_API_KEY":                        AnthropicKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"CLAUDE_CODE_MAX_RETRIES":                  "0",
		OpenAIKeyEnv:                               OpenAIKey,
		OpenCodeKeyEnv:                             AnthropicKey,
		"OPENCODE_DISABLE_AUTOUPDATE":              "1",
		"OPENCODE_DISABLE_MODELS_FETCH":            "1",
	}
	for _, d := range []string{e.ClaudeConfigDir, e.CodexHome, e.vars["XDG_CONFIG_HOME"], e.vars["XDG_STATE_HOME"], e.vars["XDG_CACHE_HOME"], e.vars["XDG_DATA_HOME"]} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("e2e: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(e.codexConfig()), 0o644); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	e.writeOpenCodeConfig()
	t.Logf("e2e: env HOME=%s fake API=%s", home, api.URL())
	t.Cleanup(e.Cleanup)
	return e
}

func (e *Env) codexConfig() string {
	return fmt.Sprintf(`# Written by e2e/harness: Codex talks to the offline fake API only.
model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.fake]
name = "Fake"
base_url = %q
env_key = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000
`, e.API.URL()+"/v1", OpenAIKeyEnv)
}

// AppendCodexConfig appends TOML to $CODEX_HOME/config.toml (top-level keys
// must come before any table, so add tables only, or use
// WriteCodexConfig).
func (e *Env) AppendCodexConfig(toml string) {
	e.T.Helper()
	f, err := os.OpenFile(filepath.Join(e.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + toml + "\n"); err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	e.T.Logf("e2e: appended to %s:\n%s", filepath.Join(e.CodexHome, "config.toml"), toml)
}

// WriteCodexConfig rewrites $CODEX_HOME/config.toml as topLevel keys +
// the harness's provider config + tables.
func (e *Env) WriteCodexConfig(topLevel, tables string) {
	e.T.Helper()
	cfg := topLevel + "\n" + e.codexConfig() + "\n" + tables + "\n"
	if err := os.WriteFile(filepath.Join(e.CodexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	e.T.Logf("e2e: wrote %s", filepath.Join(e.CodexHome, "config.toml"))
}

// Setenv sets (or, with value "", removes) a variable of the CLIs'
// environment.
func (e *Env) Setenv(key, value string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if value == "" {
		delete(e.vars, key)
	} else {
		e.vars[key] = value
	}
}

// Environ is the CLIs' environment, sorted, as KEY=VALUE.
func (e *Env) Environ() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.vars))
	for k, v := range e.vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// ProjectDir makes (if needed) and returns HOME/src/<name>, a directory to
// run a CLI in.
func (e *Env) ProjectDir(name string) string {
	e.T.Helper()
	dir := filepath.Join(e.Home, "src", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.T.Fatalf("e2e: %v", err)
	}
	return dir
}

// SeedClaudeJSON writes Claude Code's global state file with onboarding
// done, the dummy API key approved and, for each directory, the trust
// dialog accepted, so that interactive runs start straight at the prompt.
// With CLAUDE_CONFIG_DIR set Claude reads $CLAUDE_CONFIG_DIR/.claude.json;
// ~/.claude.json is written too. Existing content is kept (merged).
func (e *Env) SeedClaudeJSON(projectDirs ...string) {
	e.T.Helper()
	for _, path := range []string{filepath.Join(e.ClaudeConfigDir, ".claude.json"), filepath.Join(e.Home, ".claude.json")} {
		cfg := map[string]any{}
		if b, err := os.ReadFile(path); err == nil {
			if err := json.Unmarshal(b, &cfg); err != nil {
				e.T.Fatalf("e2e: %s: %v", path, err)
			}
		}
		cfg["hasCompletedOnboarding"] = true
		cfg["theme"] = "dark"
		key := AnthropicKey
		if len(key) > 20 {
			key = key[len(key)-20:]
		}
		cfg["customApiKeyResponses"] = map[string]any{"approved": []string{key}, "rejected": []string{}}
		projects, _ := cfg["projects"].(map[string]any)
		if projects == nil {
			projects = map[string]any{}
		}
		for _, d := range projectDirs {
			if abs, err := filepath.Abs(d); err == nil {
				d = abs
			}
			p, _ := projects[d].(map[string]any)
			if p == nil {
				p = map[string]any{}
			}
			p["hasTrustDialogAccepted"] = true
			p["hasCompletedProjectOnboarding"] = true
			projects[d] = p
		}
		cfg["projects"] = projects
		b, err := json.MarshalIndent(cfg, "", "  ")
		if err != nil {
			e.T.Fatalf("e2e: %v", err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			e.T.Fatalf("e2e: %v", err)
		}
	}
	e.T.Logf("e2e: seeded %s/.claude.json (onboarding done, key approved, trusted: %v)", e.ClaudeConfigDir, projectDirs)
}

// Result is the outcome of one CLI run.
type Result struct {
	Name     string
	Bin      string
	Args     []string
	Dir      string
	Stdout   string
	Stderr   string
	ExitCode int // -1 when the process did not exit by itself
	TimedOut bool
	Err      error // failed to start, or killed
	Duration time.Duration
}

// Claude runs Claude Code (bin) in dir with args, stdin /dev/null, within
// e.Timeout (and ctx).
func (e *Env) Claude(ctx context.Context, bin, dir string, args ...string) Result {
	e.T.Helper()
	return e.Run(ctx, "claude", bin, dir, args...)
}

// Codex runs the Codex CLI (bin) in dir with args, stdin /dev/null, within
// e.Timeout (and ctx).
func (e *Env) Codex(ctx context.Context, bin, dir string, args ...string) Result {
	e.T.Helper()
	return e.Run(ctx, "codex", bin, dir, args...)
}

// Run runs bin in dir with args in the env, stdin /dev/null, in its own
// process group (killed whole on timeout), and logs what it does.
func (e *Env) Run(ctx context.Context, name, bin, dir string, args ...string) Result {
	e.T.Helper()
	return e.RunInput(ctx, name, bin, dir, "", args...)
}

// RunInput is Run with stdin as the program's standard input ("" is
// /dev/null).
func (e *Env) RunInput(ctx context.Context, name, bin, dir, stdin string, args ...string) Result {
	e.T.Helper()
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second

	res := Result{Name: name, Bin: bin, Args: args, Dir: dir, ExitCode: -1}
	e.T.Logf("e2e: run %s in %s: %s %s", name, dir, filepath.Base(bin), quoteArgs(args))
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		e.mu.Lock()
		e.pgids = append(e.pgids, cmd.Process.Pid)
		e.mu.Unlock()
		err = cmd.Wait()
	}
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &exitErr) && exitErr.Exited():
		res.ExitCode = exitErr.ExitCode()
	default:
		res.Err = err
	}
	if ctx.Err() == context.DeadlineExceeded {
		res.TimedOut = true
		res.ExitCode = -1
		res.Err = fmt.Errorf("%s timed out after %v", name, timeout)
	}
	e.T.Logf("e2e: %s exited %d after %v (err=%v)\n[stdout]\n%s[stderr]\n%s", name, res.ExitCode,
		res.Duration.Round(time.Millisecond), res.Err, clip(res.Stdout), clip(res.Stderr))
	return res
}

// clip shortens output for the log: long lines are cut, and only the first
// and last lines of long output are kept.
func clip(s string) string {
	if s == "" {
		return "(empty)\n"
	}
	const maxLine, maxLines = 400, 60
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if len(lines) > maxLines && i == maxLines/2 {
			out = append(out, fmt.Sprintf("… %d lines …", len(lines)-maxLines))
		}
		if len(lines) > maxLines && i >= maxLines/2 && i < len(lines)-maxLines/2 {
			continue
		}
		if len(l) > maxLine {
			l = l[:maxLine] + fmt.Sprintf("… (+%d bytes)", len(l)-maxLine)
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n"
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			q[i] = strconv.Quote(a)
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}

// ClaudeEvents parses stream-json output (one JSON object a line; other
// lines are skipped).
func (r Result) ClaudeEvents() []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(r.Stdout, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// ClaudeResult is the final {"type":"result"} event of stream-json (or
// json) output, and false if there is none.
func (r Result) ClaudeResult() (map[string]any, bool) {
	evs := r.ClaudeEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i]["type"] == "result" {
			return evs[i], true
		}
	}
	return nil, false
}

// ClaudeTranscripts lists the session transcripts
// $CLAUDE_CONFIG_DIR/projects/*/*.jsonl (not subagent ones).
func (e *Env) ClaudeTranscripts() []string {
	m, _ := filepath.Glob(filepath.Join(e.ClaudeConfigDir, "projects", "*", "*.jsonl"))
	var out []string
	for _, p := range m {
		if !strings.HasPrefix(filepath.Base(p), "agent-") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// CodexRollouts lists the rollout files under $CODEX_HOME/sessions.
func (e *Env) CodexRollouts() []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(e.CodexHome, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// Cleanup ends the Codex app-server daemons recorded in
// $CODEX_HOME/app-server-daemon/*.pid, the process groups of the CLIs this
// Env started, and (on Linux) any other process still running with this
// Env's HOME. It runs by itself when the test ends; calling it again is
// harmless.
func (e *Env) Cleanup() {
	killed := map[int]bool{}
	// 1. Codex daemons, by the pids they recorded.
	pidFiles, _ := filepath.Glob(filepath.Join(e.CodexHome, "app-server-daemon", "*.pid"))
	for _, f := range pidFiles {
		pid := readPidFile(f)
		if pid <= 1 || !alive(pid) || isZombie(pid) {
			continue
		}
		if runtime.GOOS == "linux" && !e.ownsProcess(pid) {
			e.T.Logf("e2e: cleanup: pid %d from %s is not ours; left alone", pid, f)
			continue
		}
		e.T.Logf("e2e: cleanup: ending Codex daemon pid %d (%s)", pid, filepath.Base(f))
		terminate(pid)
		killed[pid] = true
	}
	// 2. The process groups of the CLIs we ran.
	e.mu.Lock()
	pgids := append([]int(nil), e.pgids...)
	e.mu.Unlock()
	for _, pg := range pgids {
		if groupAlive(pg) {
			e.T.Logf("e2e: cleanup: killing leftover process group %d", pg)
			_ = syscall.Kill(-pg, syscall.SIGKILL)
		}
	}
	// 3. Strays (e.g. daemons that wrote no pid file) still using our HOME.
	for _, pid := range e.strays() {
		if killed[pid] || pid == os.Getpid() {
			continue
		}
		e.T.Logf("e2e: cleanup: ending stray process %d (%s)", pid, cmdline(pid))
		terminate(pid)
	}
}

func readPidFile(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var v struct {
		Pid int `json:"pid"`
	}
	if json.Unmarshal(b, &v) == nil && v.Pid > 0 {
		return v.Pid
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// terminate sends SIGTERM, waits up to 2 s, then SIGKILL.
func terminate(pid int) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if !alive(pid) || isZombie(pid) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// groupAlive tells whether process group pg has a live (non-zombie)
// member.
func groupAlive(pg int) bool {
	if syscall.Kill(-pg, 0) != nil {
		return false
	}
	if runtime.GOOS != "linux" {
		return true
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		state, pgrp, ok := procStat(pid)
		if ok && pgrp == pg && state != 'Z' {
			return true
		}
	}
	return false
}

// procStat reads the state and process group of pid from /proc/<pid>/stat.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	// After "comm)": state ppid pgrp ...
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	return f[0][0], pgrp, err == nil
}

func isZombie(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state == 'Z'
}

// ownsProcess tells (Linux) whether pid runs with this Env's HOME or from
// inside it.
func (e *Env) ownsProcess(pid int) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err == nil {
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == "HOME="+e.Home || string(kv) == "CODEX_HOME="+e.CodexHome || string(kv) == "CLAUDE_CONFIG_DIR="+e.ClaudeConfigDir {
				return true
			}
		}
	}
	return strings.Contains(cmdline(pid), e.Home+string(filepath.Separator))
}

// strays lists (Linux) live processes that run with this Env's HOME.
func (e *Env) strays() []int {
	if runtime.GOOS != "linux" {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 1 || isZombie(pid) {
			continue
		}
		if e.ownsProcess(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

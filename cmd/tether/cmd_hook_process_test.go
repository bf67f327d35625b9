package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/cmd/internal/hot"
	"github.com/tether-dev/tether/hooks"
	"github.com/tether-dev/tether/internal/eventlog"
	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/testkit/claudetest"
	"github.com/tether-dev/tether/internal/testkit/testutil"
	"github.com/tether-dev/tether/state"
)

// TestMain lets the tests re-execute this binary as 'tether hook' in a
// separate process: TETHER_TEST_HOOK_CHILD=<payload file> runs the hook
// TETHER_TEST_HOOK_REPEAT times (default once) and exits.
func TestMain(m *testing.M) {
	// A background tether started for real would be this test binary,
	// running the whole suite again: tests that look replace this.
	startBackground = func([]string) (int, error) { return 0, nil }
	if payload := os.Getenv("TETHER_TEST_HOOK_CHILD"); payload != "" {
		os.Exit(hookChild(payload))
	}
	os.Exit(m.Run())
}

func hookChild(payloadFile string) int {
	data, err := os.ReadFile(payloadFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 99
	}
	n, _ := strconv.Atoi(os.Getenv("TETHER_TEST_HOOK_REPEAT"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// The re-entry guard is per process tree; each repetition here stands
	// for a separate hook process.
	getenv := func(k string) string {
		if k == hot.EnvInHook {
			return ""
		}
		return os.Getenv(k)
	}
	for i := 0; i < max(n, 1); i++ {
		ios := iostreams.System()
		ios.In = strings.NewReader(lines[i%len(lines)])
		a := &App{Deps: &hot.Deps{IO: ios, Getenv: getenv, Now: time.Now, Loc: locations.FromEnv(getenv)}, Version: "test"}
		// What the hook command runs, with one change: a hook over its
		// time budget would end the process; here each repetition stands
		// for a process, so it logs the timeout and carries on.
		a.Exit = func(int) {}
		hot.Hook(context.Background(), a.Deps, nil, func(args []string) (int, error) { return startBackground(args) })
	}
	return 0
}

func isolatedEnv(home string) []string {
	return []string{
		"HOME=" + home, "PATH=/usr/bin:/bin", "CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"),
		"CODEX_HOME=" + filepath.Join(home, ".codex"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// TestHookConcurrentProcesses: many hook processes at once, on their own
// sessions and on one shared session and root, lose no event and leave
// every state file whole. TETHER_STRESS_PROCS and TETHER_STRESS_EVENTS
// scale it up (the figure is 64 × 1000).
func TestHookConcurrentProcesses(t *testing.T) {
	procs := envInt("TETHER_STRESS_PROCS", 64)
	events := envInt("TETHER_STRESS_EVENTS", 6)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "config", "tether"), 0o700)
	// A log big enough not to rotate twice under the test's load.
	os.WriteFile(filepath.Join(home, "config", "tether", "config.toml"), []byte("[log]\nmax_size_mb = 4096\n"), 0o600)
	transcript := filepath.Join(home, "t.jsonl")
	copyFile(t, testutil.Testdata(t, "claude-code-2.1.332", "sample-tool-session.jsonl"), transcript)

	var wg sync.WaitGroup
	errs := make(chan string, procs)
	for p := 0; p < procs; p++ {
		// Each process alternates between its own session and a shared
		// one, with lifecycle events that write state.
		var b strings.Builder
		for _, sid := range []string{fmt.Sprintf("own-%03d", p), "shared"} {
			for _, ev := range []string{`"hook_event_name":"SessionStart","source":"startup"`, `"hook_event_name":"Stop"`, `"hook_event_name":"PreToolUse","tool_name":"Bash"`} {
				fmt.Fprintf(&b, `{"session_id":"%s","cwd":"/home/example/src/proj","transcript_path":"%s",%s}`+"\n", sid, transcript, ev)
			}
		}
		pf := filepath.Join(home, fmt.Sprintf("payload-%d.jsonl", p))
		os.WriteFile(pf, []byte(b.String()), 0o600)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(isolatedEnv(home), "TETHER_TEST_HOOK_CHILD="+pf, "TETHER_TEST_HOOK_REPEAT="+strconv.Itoa(events), "TETHER_LOG_LEVEL=debug")
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) != 0 {
				errs <- fmt.Sprintf("process %s: %v %q", pf, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Every event is in the log exactly once per invocation.
	var lines []string
	for _, f := range []string{"events.jsonl.1", "events.jsonl"} {
		data, _ := os.ReadFile(filepath.Join(home, "state", "tether", f))
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	counts := map[string]int{}
	timeouts := 0
	for _, l := range lines {
		if !gjson.Valid(l) {
			t.Fatalf("torn log line: %q", l)
		}
		switch ev := gjson.Get(l, "event").String(); ev {
		case hooks.EvSpawn, hooks.EvTurnEnd, hooks.EvToolEvent:
			counts[ev]++
		case eventlog.HookError:
			// Giving up after the 2 s budget is the hook working as
			// designed when 64 processes share a few cores: count it,
			// never fail on timing.
			if strings.Contains(gjson.Get(l, "error").String(), "timed out") {
				timeouts++
				continue
			}
			t.Errorf("hook error: %s", l)
		}
	}
	total := counts[hooks.EvSpawn] + counts[hooks.EvTurnEnd] + counts[hooks.EvToolEvent]
	if total != procs*events {
		t.Errorf("%d events logged, want %d (%v)", total, procs*events, counts)
	}
	t.Logf("%d processes × %d events: %d logged, %d over the time budget", procs, events, total, timeouts)
	// Every state file parses and names its session.
	for _, sub := range []string{"sessions", "roots"} {
		files, _ := filepath.Glob(filepath.Join(home, "state", "tether", sub, "*"))
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), ".") {
				t.Errorf("temporary file left behind: %s", f)
				continue
			}
			data, _ := os.ReadFile(f)
			if !gjson.ValidBytes(data) || gjson.GetBytes(data, "session_id").String() == "" {
				t.Errorf("corrupt state file %s: %q", f, data)
			}
		}
	}
	if st, err := state.LatestForRoot(filepath.Join(home, "state", "tether"), "/home/example/src/proj"); err != nil || st.SessionID == "" {
		t.Errorf("root index: %+v %v", st, err)
	}
}

// TestHookReadOnlyStateDir: with a state directory it cannot write, the
// hook still exits 0 and prints nothing. Run as an unprivileged user
// when the tests run as root (root ignores the permission bits).
func TestHookReadOnlyStateDir(t *testing.T) {
	if os.Geteuid() == 0 {
		testutil.RerunAsNobody(t, "TestHookReadOnlyStateDir")
		return
	}
	home := os.Getenv("TETHER_TEST_BASE")
	if home == "" {
		home = t.TempDir()
	}
	state := filepath.Join(home, "state")
	os.MkdirAll(filepath.Join(state, "tether"), 0o700)
	os.Chmod(filepath.Join(state, "tether"), 0o500)
	defer os.Chmod(filepath.Join(state, "tether"), 0o700)
	pf := filepath.Join(home, "payload.json")
	os.WriteFile(pf, []byte(`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/home/example/src/proj"}`), 0o600)
	exe := os.Getenv("TETHER_TEST_EXE")
	if exe == "" {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe)
	cmd.Env = append(isolatedEnv(home), "TETHER_TEST_HOOK_CHILD="+pf)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || out.Len() != 0 {
		t.Errorf("read-only state dir: %v %q", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(state, "tether", "sessions")); err == nil {
		t.Error("wrote into a read-only directory")
	}
}

// BenchmarkHookStop50MB measures one real hook invocation, process start
// to exit, of the built tether binary on a Stop event whose transcript is
// 50 MB, and reports how many transcript bytes it read.
func BenchmarkHookStop50MB(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "tether")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/tether")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	transcript := claudetest.BigTranscript(b, 50<<20)
	payload := []byte(`{"session_id":"bench","transcript_path":"` + transcript + `","cwd":"/home/example/src/proj","hook_event_name":"Stop","stop_hook_active":false}`)
	env := isolatedEnv(dir)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "hook")
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			b.Fatalf("%v %q", err, out)
		}
	}
	b.StopTimer()
	data, _ := os.ReadFile(filepath.Join(dir, "state", "tether", "events.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := lines[len(lines)-1]
	if gjson.Get(last, "tokens").Int() != claudetest.BigTokens {
		b.Fatalf("wrong usage: %s", last)
	}
	b.ReportMetric(float64(gjson.Get(last, "bytes_read").Int()), "transcript-bytes-read/op")
	b.ReportMetric(float64(gjson.Get(last, "transcript_bytes").Int()), "transcript-bytes/op")
}

// TestHookStateDirIsAFile: a state "directory" nobody can create (a file
// is in its place, which defeats root too) still leaves the hook silent
// with exit 0, for every kind of event.
func TestHookStateDirIsAFile(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "state"), []byte("not a directory"), 0o600)
	for _, ev := range []string{`"SessionStart","source":"startup"`, `"Stop"`, `"PreToolUse"`, `"SessionEnd","reason":"other"`} {
		pf := filepath.Join(home, "payload.json")
		os.WriteFile(pf, []byte(`{"session_id":"s","cwd":"/home/example/src/proj","transcript_path":"/nonexistent.jsonl","hook_event_name":`+ev+`}`), 0o600)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(isolatedEnv(home), "TETHER_TEST_HOOK_CHILD="+pf)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
			t.Errorf("%s: %v %q", ev, err, out)
		}
	}
}

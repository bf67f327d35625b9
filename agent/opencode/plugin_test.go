package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

func TestPluginCommandRoundTrip(t *testing.T) {
	a := New("", "")
	for _, cmd := range [][]string{
		{"/usr/local/bin/tether-hot", "hook", "--harness", "opencode"},
		{"/home/o'brien/my \"bin\"/tether-hot\n\u2028`$(x)`", "hook"},
	} {
		data := a.Plugin(cmd)
		first, _, _ := bytes.Cut(data, []byte("\n"))
		if !bytes.Contains(first, []byte(agent.PluginMarker)) {
			t.Fatalf("first line %q has no marker", first)
		}
		if bytes.Contains(data, []byte(commandPlaceholder)) {
			t.Fatalf("placeholder left in %q", data)
		}
		if got := a.PluginCommand(data); !reflect.DeepEqual(got, cmd) {
			t.Errorf("PluginCommand = %q, want %q", got, cmd)
		}
	}
	if got := a.PluginCommand([]byte("// my own plugin\nconst COMMAND = [\"x\"]\n")); got != nil {
		t.Errorf("a file without the marker: %q", got)
	}
}

func TestPluginFile(t *testing.T) {
	a := New("/d", "").WithConfig("/home/example/.config/opencode")
	if got := a.PluginFile("user", "/p"); got != "/home/example/.config/opencode/plugins/tether.js" {
		t.Errorf("user: %q", got)
	}
	if got := a.PluginFile("project", "/home/example/proj"); got != "/home/example/proj/.opencode/plugins/tether.js" {
		t.Errorf("project: %q", got)
	}
	if a.PluginFile("project", "") != "" || New("", "").PluginFile("user", "/p") != "" || a.PluginFile("local", "/p") != "" {
		t.Error("a scope without a directory has a path")
	}
}

// jsRuntime is node, else bun: the plugin imports node: builtins only,
// which both have (OpenCode runs it in Bun).
func jsRuntime(t *testing.T) string {
	for _, name := range []string{"node", "bun"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no node or bun to run the plugin")
	return ""
}

// TestPluginOnRecordedEvents runs tether's plugin on what OpenCode
// 1.18.33 handed a plugin in the sample runs (a new session with a tool
// call, a resume, a manual compaction, a run after it, and a new session
// whose prompt overflowed and compacted automatically), each run in a
// process of its own, and checks the hook payloads it sent, in order.
func TestPluginOnRecordedEvents(t *testing.T) {
	rt := jsRuntime(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "sent.jsonl")
	// The recorder: each payload argument, one per line.
	cmd := []string{"/bin/sh", "-c", `for a; do printf '%s\n' "$a"; done >> "$0"`, out}
	plugin := filepath.Join(dir, "tether.js")
	if err := os.WriteFile(plugin, New("", "").Plugin(cmd), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := splitRuns(t, testutil.Testdata(t, "opencode-1.18.33", "sample-plugin-events.jsonl"), dir)
	if len(runs) != 5 {
		t.Fatalf("%d runs in the sample, want 5", len(runs))
	}
	for i, events := range runs {
		before := countLines(out)
		c := exec.Command(rt, "testdata/drive.mjs", plugin, events)
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, b)
		}
		// The last hook runs detached: wait for its SessionEnd lines.
		waitFor(t, func() bool { n := countLines(out); return n > before && strings.Contains(lastSent(out), "SessionEnd") })
	}
	got := summarize(t, out)
	s1, s2 := "ses_dcd139480ffeoAscKd2JgtbA1X", "ses_dcd09fbc5ffeVjgWt4UDgHeQf3"
	want := []string{
		// run 1: created here, one tool call, two model steps.
		"SessionStart " + s1 + " source=startup",
		"Stop " + s1 + " tokens=1194 window=200000 model=fake-model",
		"SessionEnd " + s1 + " reason=exit",
		// run 2: the same session, resumed.
		"SessionStart " + s1 + " source=resume",
		"Stop " + s1 + " tokens=1196 window=200000 model=fake-model",
		"SessionEnd " + s1 + " reason=exit",
		// the server's manual compaction: the summary's tokens are not
		// the context after it.
		"SessionStart " + s1 + " source=resume",
		"PreCompact " + s1 + " trigger=manual",
		"PostCompact " + s1 + " trigger=manual",
		"Stop " + s1,
		"SessionEnd " + s1 + " reason=exit",
		// run 3: after the compaction.
		"SessionStart " + s1 + " source=resume",
		"Stop " + s1 + " tokens=1200 window=200000 model=fake-model",
		"SessionEnd " + s1 + " reason=exit",
		// run 4: the prompt is too long; OpenCode compacts and retries.
		"SessionStart " + s2 + " source=startup",
		"StopFailure " + s2 + " error=ContextOverflowError",
		"PreCompact " + s2 + " trigger=auto",
		"PostCompact " + s2 + " trigger=auto",
		"Stop " + s2 + " tokens=1208 window=200000 model=fake-model",
		"SessionEnd " + s2 + " reason=exit",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("payloads sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Metadata only: nothing of a prompt, an answer or a tool's output.
	data, _ := os.ReadFile(out)
	for _, text := range []string{"TOOL_CALL", "hi-from-tool", "second turn", "Hello from fake model", "prompt is too long", "notes.txt"} {
		if bytes.Contains(data, []byte(text)) {
			t.Errorf("a payload holds %q:\n%s", text, data)
		}
	}
}

// splitRuns writes the sample's runs (between its MARK lines) to files
// of their own.
func splitRuns(t *testing.T, sample, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	var cur *os.File
	for line := range bytes.Lines(data) {
		if bytes.Contains(line, []byte(`"event": "MARK"`)) || bytes.Contains(line, []byte(`"event":"MARK"`)) {
			if cur != nil {
				cur.Close()
			}
			name := filepath.Join(dir, "run"+string(rune('0'+len(runs)))+".jsonl")
			if cur, err = os.Create(name); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, name)
			continue
		}
		if cur != nil {
			cur.Write(line)
		}
	}
	if cur != nil {
		cur.Close()
	}
	return runs
}

func summarize(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p map[string]any
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if p[FieldEvent] == nil || p["cwd"] != "/home/example/proj" {
			t.Errorf("payload without %s or the project's cwd: %s", FieldEvent, sc.Text())
		}
		s := p["hook_event_name"].(string) + " " + p["session_id"].(string)
		for _, k := range []string{"source", "trigger", "error", "reason", FieldTokens, FieldWindow, "model", "agent_id"} {
			if v, ok := p[k]; ok {
				name := k
				if k == FieldWindow {
					name = "window"
				}
				b, _ := json.Marshal(v)
				s += " " + name + "=" + strings.Trim(string(b), `"`)
			}
		}
		out = append(out, s)
	}
	return out
}

func countLines(path string) int {
	data, _ := os.ReadFile(path)
	return bytes.Count(data, []byte("\n"))
}

func lastSent(path string) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return lines[len(lines)-1]
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("the plugin's last hook did not run")
}

// A plugins directory makes OpenCode wait for npm at each start, unless
// the install it waits for is there or npm is set to fail at once.
func TestPluginWait(t *testing.T) {
	home, cfg := t.TempDir(), t.TempDir()
	plugin := filepath.Join(cfg, "plugins", "tether.js")
	a := New(t.TempDir(), "")
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := a.PluginWait(plugin, home, getenv); !strings.Contains(got, cfg+" has no node_modules/@opencode-ai/plugin") ||
		!strings.Contains(got, "offline=true in "+filepath.Join(home, ".npmrc")) {
		t.Errorf("nothing installed, npm online: %q", got)
	}
	for _, rc := range []string{"offline=true\n", "; a comment\nfetch-retries = 0\n", "  offline = \"true\"\n"} {
		os.WriteFile(filepath.Join(home, ".npmrc"), []byte(rc), 0o600)
		if got := a.PluginWait(plugin, home, getenv); got != "" {
			t.Errorf("npmrc %q: %q", rc, got)
		}
	}
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("# offline=true\noffline=false\n"), 0o600)
	if a.PluginWait(plugin, home, getenv) == "" {
		t.Error("offline=false: no wait said")
	}
	env["npm_config_offline"] = "true"
	if got := a.PluginWait(plugin, home, getenv); got != "" {
		t.Errorf("npm_config_offline=true: %q", got)
	}
	delete(env, "npm_config_offline")
	other := filepath.Join(t.TempDir(), "npmrc")
	os.WriteFile(other, []byte("offline=true\n"), 0o600)
	env["NPM_CONFIG_USERCONFIG"] = other
	if got := a.PluginWait(plugin, home, getenv); got != "" {
		t.Errorf("NPM_CONFIG_USERCONFIG: %q", got)
	}
	delete(env, "NPM_CONFIG_USERCONFIG")
	pkg := filepath.Join(cfg, "node_modules", "@opencode-ai", "plugin")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte("{}"), 0o644)
	if got := a.PluginWait(plugin, home, getenv); got != "" {
		t.Errorf("installed: %q", got)
	}
}

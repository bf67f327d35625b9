package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestRecordShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "tether", "events.jsonl")
	l := Open(Options{Path: path, Harness: ClaudeCode, IdentityRoot: "/home/example/src/project"})
	l.Info("spawn", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.String("cwd", "/home/example/src/project"), slog.Int("pid", 42))
	l.Debug("hidden", "x") // below the default level
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 1 {
		t.Fatalf("want 1 line, got %d: %s", len(lines), data)
	}
	var m map[string]any
	if err := json.Unmarshal(lines[0], &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"level": "info", "event": "spawn", "session_id": "d9f7843f-07d6-4b50-9048-40676f77f965",
		"harness": "claude-code", "identity_root": "/home/example/src/project",
		"cwd": "/home/example/src/project", "pid": float64(42),
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
	// The keys in this order (Emit builds the record itself, not through
	// Logger.LogAttrs).
	wantLine := `{"time":"` + m["time"].(string) + `","level":"info","event":"spawn","harness":"claude-code","identity_root":"/home/example/src/project",` +
		`"session_id":"d9f7843f-07d6-4b50-9048-40676f77f965","cwd":"/home/example/src/project","pid":42}`
	if string(lines[0]) != wantLine {
		t.Errorf("record\n%s\nwant\n%s", lines[0], wantLine)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	dst, _ := os.Stat(filepath.Dir(path))
	if dst.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", dst.Mode().Perm())
	}
	rec, ok := Parse(lines[0])
	if !ok || rec.Event != "spawn" || rec.Harness != ClaudeCode || rec.Time.IsZero() {
		t.Errorf("Parse: %+v %v", rec, ok)
	}
	var keys []string
	rec.Fields(func(k string, _ gjson.Result) { keys = append(keys, k) })
	if fmt.Sprint(keys) != "[cwd pid]" {
		t.Errorf("Fields: %v", keys)
	}
}

func TestLevels(t *testing.T) {
	for _, s := range []string{"debug", "INFO", "warn", "warning", "error", ""} {
		if _, err := ParseLevel(s); err != nil {
			t.Errorf("ParseLevel(%q): %v", s, err)
		}
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel(loud): want error")
	}
	path := filepath.Join(t.TempDir(), "e.jsonl")
	l := Open(Options{Path: path, Level: slog.LevelDebug})
	l.Debug("d", "")
	l.With(Codex, "/r").Debug("d2", "")
	n := 0
	if _, err := ReadAll(path, func(r Record) { n++ }); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("debug records: %d, want 2 (With must keep the level)", n)
	}
}

func TestUnwritableLogNeverFails(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	l := Open(Options{Path: filepath.Join(blocker, "events.jsonl")})
	l.Info("spawn", "s") // must not panic or block
	if l.Err() == nil {
		t.Error("want the write error kept for Err")
	}
	var zero *Log
	zero.Info("x", "y") // a nil log discards
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l := Open(Options{Path: path, MaxSize: 2000})
	for i := 0; i < 100; i++ {
		l.Info("tick", strconv.Itoa(i))
	}
	cur, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Size() > 2000 {
		t.Errorf("current file %d bytes, over the limit", cur.Size())
	}
	if _, err := os.Stat(path + ".1"); err != nil {
		t.Errorf("no rotated file: %v", err)
	}
	// Exactly one previous file is kept, so the newest records survive and
	// are read in order.
	var ids []int
	if _, err := ReadAll(path, func(r Record) {
		n, _ := strconv.Atoi(r.SessionID)
		ids = append(ids, n)
	}); err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 || ids[len(ids)-1] != 99 {
		t.Fatalf("last record %v", ids)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]+1 {
			t.Fatalf("records out of order or missing across rotation: %v", ids)
		}
	}
}

// TestConcurrentWriters appends from many goroutines and several processes
// at once and reads back only whole records, none lost.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	const procs, goroutines, perWriter = 4, 8, 200

	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestHelperWriter$")
		cmd.Env = append(os.Environ(), "TETHER_HELPER_LOG="+path, "TETHER_HELPER_NAME=proc"+strconv.Itoa(p),
			"TETHER_HELPER_N="+strconv.Itoa(goroutines*perWriter))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	writeMany(path, "self", goroutines, perWriter)
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %d is not whole JSON: %v: %.100s", i+1, err, line)
		}
		key := fmt.Sprint(m["session_id"], "/", m["seq"])
		if seen[key] {
			t.Fatalf("duplicate record %s", key)
		}
		seen[key] = true
	}
	if want := (procs + 1) * goroutines * perWriter; len(seen) != want {
		t.Errorf("read %d records, want %d", len(seen), want)
	}
}

func TestHelperWriter(t *testing.T) {
	path := os.Getenv("TETHER_HELPER_LOG")
	if path == "" {
		t.Skip("helper process for TestConcurrentWriters")
	}
	n, _ := strconv.Atoi(os.Getenv("TETHER_HELPER_N"))
	writeMany(path, os.Getenv("TETHER_HELPER_NAME"), 8, n/8)
}

func writeMany(path, name string, goroutines, per int) {
	l := Open(Options{Path: path, MaxSize: 1 << 30, Harness: ClaudeCode, IdentityRoot: "/home/example/src/project"})
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				// Records well over a pipe buffer's atomic size, to show the
				// guarantee does not rest on small writes.
				l.Info("context_usage", fmt.Sprintf("%s-%d", name, g), slog.Int("seq", i),
					slog.String("transcript_path", "/home/example/.claude/projects/-home-example-src-project/"+string(bytes.Repeat([]byte("x"), 6000))))
			}
		}(g)
	}
	wg.Wait()
}

func TestFollowerAcrossRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l := Open(Options{Path: path, MaxSize: 1 << 30})
	l.Info("before", "1")
	var got []string
	f, err := ReadAll(path, func(r Record) { got = append(got, r.Event) })
	if err != nil {
		t.Fatal(err)
	}
	l.Info("a", "2")
	// A torn line (a writer died mid-record) is left until it is whole and
	// never delivered half.
	fh, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	fh.WriteString(`{"event":"partial"`)
	fh.Close()
	f.Poll(func(r Record) { got = append(got, r.Event) })
	fh, _ = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	fh.WriteString(`,"level":"info"}` + "\n")
	fh.Close()
	l.Info("b", "3")
	os.Rename(path, path+".1") // as a rotation would
	l.Info("c", "4")
	if err := f.Poll(func(r Record) { got = append(got, r.Event) }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[before a partial b c]" {
		t.Errorf("followed %v", got)
	}
}

// With names another harness and root, in the same place of the record,
// at the same level, in the same file.
func TestWithRecordShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l := Open(Options{Path: path, Level: slog.LevelInfo, Harness: ClaudeCode, IdentityRoot: "/home/example/a"}).With(Codex, "/home/example/b")
	l.Debug("hidden", "s")
	l.Info("spawn", "s", slog.Bool("ok", true))
	data, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	want := `{"time":"` + fmt.Sprint(m["time"]) + `","level":"info","event":"spawn","harness":"codex","identity_root":"/home/example/b","session_id":"s","ok":true}` + "\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
}

// Every level, custom ones included, is written in lower case, as slog
// names it (levelName skips fmt, not the naming).
func TestLevelNames(t *testing.T) {
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelError + 4, slog.LevelDebug - 1} {
		if got, want := levelName(slog.AnyValue(l)), strings.ToLower(slog.AnyValue(l).String()); got != want {
			t.Errorf("%v: %q, want %q", l, got, want)
		}
	}
	if got := levelName(slog.StringValue("WARN")); got != "warn" {
		t.Errorf("a string level: %q", got)
	}
}

// Options.RootFunc: the root is resolved at the first record written that
// names it, not at Open nor for a record below the level; records of a
// With log name their own root; RootFunc may itself write a record.
func TestLazyRoot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	calls := 0
	var l *Log
	l = Open(Options{Path: path, Harness: ClaudeCode, RootFunc: func() string {
		calls++
		if calls == 1 {
			l.Warn("pin_ignored", "") // as tether's root resolution does
		}
		return "/home/example/root"
	}})
	l.Debug("hidden", "s")
	l.With(Codex, "/home/example/other").Info("spawn", "s")
	if calls != 0 {
		t.Fatalf("RootFunc called %d times before a record named it", calls)
	}
	done := make(chan struct{})
	go func() { l.Info("turn_end", "s"); l.Info("turn_end", "s"); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a RootFunc that writes a record deadlocks")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, fmt.Sprint(m["event"], " ", m["identity_root"]))
	}
	want := []string{"spawn /home/example/other", "pin_ignored /home/example/root", "turn_end /home/example/root", "turn_end /home/example/root"}
	if strings.Join(roots, "|") != strings.Join(want, "|") {
		t.Errorf("records %q, want %q", roots, want)
	}
	if calls > 2 {
		t.Errorf("RootFunc called %d times", calls)
	}
}

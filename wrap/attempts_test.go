package wrap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/claude"
)

// TestFallbackNoticeNamesOnlyExistingFiles: the notice promises CLAUDE.md
// only when there is one, and says where the old session is and the one
// command that would make it resumable.
func TestFallbackNoticeNamesOnlyExistingFiles(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	f.script = []func(Child) int{appendTooLong(p), func(Child) int { return 0 }}
	f.run("-p", "--resume", sid, "go on")
	got := f.stderr.String()
	if strings.Contains(got, "CLAUDE.md") {
		t.Errorf("notice names a CLAUDE.md that does not exist: %q", got)
	}
	if !strings.Contains(got, "The old session is kept in "+p) || !strings.Contains(got, "tether trim --fit 60% "+sid) {
		t.Errorf("notice lacks where the old session is and the fix: %q", got)
	}

	f = newFixture(t)
	os.WriteFile(filepath.Join(f.root.Dir, "CLAUDE.md"), []byte("# notes\n"), 0o644)
	f.writeTranscript(f.root.Path, "\x00garbage\n")
	f.run("--resume", sid)
	got = f.stderr.String()
	if !strings.Contains(got, "Project context is preserved in CLAUDE.md.") || !strings.Contains(got, "tether sessions show "+sid) {
		t.Errorf("corrupt transcript notice: %q", got)
	}
	if strings.Count(got, "\n") != 1 {
		t.Errorf("notice is not one line: %q", got)
	}
}

func appendTooLong(p string) func(Child) int {
	return func(Child) int {
		data, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		parent := gjsonGet(lines[len(lines)-1], "uuid")
		n := len(lines)
		env := func(uuid, parent, typ string) string {
			return fmt.Sprintf(`"uuid":%q,"parentUuid":%q,"type":%q,"sessionId":%q,"cwd":"/home/example","timestamp":"2026-11-30T10:00:00Z","isSidechain":false,"version":"2.1.332","userType":"external"`, uuid, parent, typ, sid)
		}
		u, a := fmt.Sprintf("r%d", n), fmt.Sprintf("r%d", n+1)
		fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString("{" + env(u, parent, "user") + `,"message":{"role":"user","content":"go on"}}` + "\n")
		fh.WriteString("{" + env(a, u, "assistant") + `,"isApiErrorMessage":true,"error":"invalid_request","message":{"id":"x","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"Prompt is too long"}],"usage":{"input_tokens":0,"output_tokens":0}}}` + "\n")
		fh.Close()
		return 1
	}
}

// TestPromptTooLongTrimsBeforeGivingUp: a resume the API refuses as too
// long, of a session whose estimate was under the threshold, is trimmed to
// fit and resumed once more; only if that fails too does a fresh session
// start.
func TestPromptTooLongTrimsBeforeGivingUp(t *testing.T) {
	for _, retryFails := range []bool{false, true} {
		t.Run(fmt.Sprint("retryFails=", retryFails), func(t *testing.T) {
			f := newFixture(t)
			// ~300k characters of tool output, usage 40% of 200k: under the
			// threshold, over the 60% fit once estimated from the file.
			p := f.writeTranscript(f.root.Path, bigSession(f.root.Path, 600000, 80000))
			steps := []func(Child) int{appendTooLong(p), func(Child) int { return 0 }}
			if retryFails {
				steps = []func(Child) int{appendTooLong(p), appendTooLong(p), func(Child) int { return 0 }}
			}
			f.script = steps
			code, err := f.runOpts(func(o *Options) { o.Exec = f.scripted }, "-p", "--resume", sid, "go on")
			if err != nil || code != 0 {
				t.Fatalf("code %d err %v", code, err)
			}
			if _, err := os.Stat(p + ".bak"); err != nil {
				t.Errorf("no backup kept: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(f.stderr.String()), "\n")
			if !strings.Contains(lines[0], "prompt too long") || !strings.Contains(lines[0], "trimmed to about") || !strings.Contains(lines[0], "resuming once more") {
				t.Errorf("first notice %q", lines[0])
			}
			if len(f.calls) < 2 || !reflect.DeepEqual(f.calls[1].Args, []string{"-p", "--resume", sid, "go on"}) {
				t.Fatalf("second attempt is not the resume: %+v", f.calls)
			}
			want := []string{"spawn", "resume_failure", "trim", "resume_retry", "end"}
			if retryFails {
				want = []string{"spawn", "resume_failure", "trim", "resume_retry", "resume_failure", "fresh_fallback"}
				if len(f.calls) != 3 || !reflect.DeepEqual(f.calls[2].Args, []string{"-p", "go on"}) || len(lines) != 2 ||
					!strings.Contains(lines[1], "could not be resumed (prompt too long, even after trimming)") {
					t.Errorf("calls %+v stderr %q", f.calls, f.stderr.String())
				}
			} else if len(f.calls) != 2 || len(lines) != 1 {
				t.Errorf("calls %d stderr %q", len(f.calls), f.stderr.String())
			}
			if ev := f.events(); !reflect.DeepEqual(ev, want) {
				t.Errorf("events %v, want %v", ev, want)
			}
		})
	}
}

// scripted is an ExecFunc that runs the fixture's script, writing each
// step's stdout as "attempt N".
func (f *fixture) scripted(c Child) (int, error) {
	f.calls = append(f.calls, c)
	if len(f.script) == 0 {
		return 0, nil
	}
	step := f.script[0]
	f.script = f.script[1:]
	if c.Stdout != nil {
		fmt.Fprintf(c.Stdout, `{"type":"result","subtype":"success","is_error":%v,"session_id":"s%d","result":"secret %d"}`+"\n", len(f.script) > 0, len(f.calls), len(f.calls))
	}
	return step(c), nil
}

// TestJSONOutputCarriesOneDocument: with -p --output-format json, stdout
// gets only the document of the attempt that counts; the failed attempt's
// is withheld and logged as metadata.
func TestJSONOutputCarriesOneDocument(t *testing.T) {
	for _, args := range [][]string{
		{"-p", "--resume", sid, "--output-format", "json", "go on"},
		{"-p", "--resume", sid, "--output-format=json", "go on"},
	} {
		f := newFixture(t)
		p := f.writeTranscript(f.root.Path, userRecord(f.root.Path))
		var stdout bytes.Buffer
		f.script = []func(Child) int{appendTooLong(p), func(Child) int { return 0 }}
		code, err := f.runOpts(func(o *Options) { o.Exec, o.Stdout, o.Threshold = f.scripted, &stdout, 0 }, args...)
		if err != nil || code != 0 || len(f.calls) != 2 {
			t.Fatalf("code %d err %v calls %d", code, err, len(f.calls))
		}
		if got := stdout.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"session_id":"s2"`) {
			t.Errorf("%q: stdout %q, want only the fresh attempt's document", args, got)
		}
		data, _ := os.ReadFile(f.logPath)
		if !bytes.Contains(data, []byte(`"event":"output_withheld"`)) || bytes.Contains(data, []byte("secret")) {
			t.Errorf("log: %s", data)
		}
	}
	// A resume that works prints its document once, and an interactive or
	// text-mode run is not buffered at all.
	f := newFixture(t)
	f.writeTranscript(f.root.Path, userRecord(f.root.Path))
	var stdout bytes.Buffer
	f.script = []func(Child) int{func(Child) int { return 0 }}
	f.runOpts(func(o *Options) { o.Exec, o.Stdout = f.scripted, &stdout }, "-p", "--resume", sid, "--output-format", "json", "x")
	if strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("successful resume: stdout %q", stdout.String())
	}
	f.calls = nil
	f.runOpts(func(o *Options) { o.Exec = f.scripted }, "--resume", sid)
	if len(f.calls) != 1 || f.calls[0].Stdout != nil {
		t.Errorf("interactive run got a redirected stdout")
	}
}

func gjsonGet(line, key string) string { return gjson.Get(line, key).Str }

// TestNoticeAbbreviatesAmongNeighbours: the wrapper's notice names the
// session by a prefix no sibling transcript shares.
func TestNoticeAbbreviatesAmongNeighbours(t *testing.T) {
	f := newFixture(t)
	p := f.writeTranscript(f.root.Path, "")
	twin := filepath.Join(filepath.Dir(p), sid[:10]+"00-0000-0000-0000-000000000000.jsonl")
	os.WriteFile(twin, []byte(userRecord(f.root.Path)), 0o600)
	f.runOpts(func(o *Options) { o.Abbrev = SiblingAbbrev(nil, claude.New(f.claude)) }, "--resume", sid)
	if !strings.HasPrefix(f.stderr.String(), "tether: session "+sid[:11]+" could not be resumed") {
		t.Errorf("notice %q", f.stderr.String())
	}
}

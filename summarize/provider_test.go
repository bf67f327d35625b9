package summarize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

const goodReply = `{"title":"Fix the parser","objective":"o","completed":"c","currentWork":"w","likelyNext":"n"}`

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "provider.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func testEvidence() Evidence {
	ev := bigEvidence()
	ev.Previous = nil
	return ev
}

func newZ(t *testing.T, argv ...string) (*Summarizer, string) {
	t.Helper()
	p, err := New(Options{Provider: ProviderCommand, Command: argv, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	return &Summarizer{Provider: p, DataDir: data, Budget: 2000, Now: time.Now}, data
}

func TestRunCommandProvider(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	z, data := newZ(t, script(t, `cat > "`+dir+`/stdin"; echo x >> "`+calls+`"; echo '`+goodReply+`'`))
	ev := testEvidence()
	res, err := z.Run(context.Background(), ev)
	if err != nil || res.Cached || res.Summary.Title != "Fix the parser" || res.Summary.Provider != ProviderCommand {
		t.Fatalf("run: %+v %v", res, err)
	}
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if !strings.HasPrefix(string(stdin), Instructions) || !strings.Contains(string(stdin), "PROMPT4") {
		t.Errorf("provider input:\n%.300s", stdin)
	}
	stored, _ := Load(data, ev.Session.Harness, ev.Session.ID)
	if stored == nil || !stored.LastActivity.Equal(ev.Session.LastActivity) {
		t.Fatalf("not stored: %+v", stored)
	}
	// A cache hit calls nothing.
	ev.Previous = stored
	if res, err := z.Run(context.Background(), ev); err != nil || !res.Cached {
		t.Errorf("second run: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "x") != 1 {
		t.Errorf("provider called %d times, want 1", strings.Count(string(b), "x"))
	}
	// --force calls again; a changed session is summarized again.
	z.Force = true
	if res, err := z.Run(context.Background(), ev); err != nil || res.Cached {
		t.Errorf("forced run: %+v %v", res, err)
	}
	z.Force = false
	ev.Session.LastActivity = ev.Session.LastActivity.Add(time.Minute)
	if res, err := z.Run(context.Background(), ev); err != nil || res.Cached {
		t.Errorf("changed session: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "x") != 3 {
		t.Errorf("provider called %d times, want 3", strings.Count(string(b), "x"))
	}
}

func TestRunProviderFailuresStoreNothing(t *testing.T) {
	cases := map[string]string{
		"exit 1":        `echo "quota exceeded" >&2; exit 1`,
		"invalid reply": `echo 'Sure! The session was about parsing.'`,
		"bad shape":     `echo '{"title":"t"}'`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			z, data := newZ(t, script(t, body))
			ev := testEvidence()
			_, err := z.Run(context.Background(), ev)
			if err == nil {
				t.Fatal("no error")
			}
			if name == "exit 1" && !strings.Contains(err.Error(), "quota exceeded") {
				t.Errorf("error does not say why: %v", err)
			}
			if _, serr := os.Stat(Dir(data)); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("something was written under %s", Dir(data))
			}
		})
	}
}

func TestRunRefusesMissingCommand(t *testing.T) {
	z, _ := newZ(t, filepath.Join(t.TempDir(), "nope"))
	if _, err := z.Run(context.Background(), testEvidence()); !errors.Is(err, ErrRefused) {
		t.Errorf("missing program: %v", err)
	}
}

func TestNoProvider(t *testing.T) {
	_, err := New(Options{})
	if !errors.Is(err, ErrNoProvider) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "[summarize] provider") {
		t.Errorf("no provider: %v", err)
	}
	if _, err := New(Options{Provider: "gpt"}); err == nil {
		t.Error("unknown provider accepted")
	}
}

func TestAnthropicProvider(t *testing.T) {
	api, err := fakeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	api.SetSideClassifier(func(fakeapi.Request) bool { return false })
	env := map[string]string{"ANTHROPIC_BASE_URL": api.URL(), "ANTHROPIC_API_KEY": "sk-test-secret"}
	p, err := New(Options{Provider: ProviderAnthropic, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.Describe(), "sk-test") {
		t.Errorf("describe shows the key: %s", p.Describe())
	}
	api.Enqueue(fakeapi.Text(goodReply))
	data := t.TempDir()
	z := &Summarizer{Provider: p, DataDir: data, Now: time.Now}
	ev := testEvidence()
	res, err := z.Run(context.Background(), ev)
	if err != nil || res.Summary.Title != "Fix the parser" || res.Summary.Model != DefaultAnthropicModel {
		t.Fatalf("run: %+v %v", res, err)
	}
	req, ok := api.LastModelRequest()
	if !ok || req.Model != DefaultAnthropicModel || !strings.Contains(req.System, "exactly one JSON object") || !strings.Contains(req.LastUserText(), "PROMPT4") {
		t.Errorf("request: model %q system %.60q", req.Model, req.System)
	}
	// An API error is an error, and nothing is stored.
	api.Enqueue(fakeapi.Overloaded())
	ev.Session.ID = "other"
	if _, err := z.Run(context.Background(), ev); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("overloaded: %v", err)
	}
	if s, _ := Load(data, ev.Session.Harness, "other"); s != nil {
		t.Error("stored after an API error")
	}
	// No key: refused before sending.
	delete(env, "ANTHROPIC_API_KEY")
	n := len(api.Requests())
	z2 := &Summarizer{Provider: newAnthropic(Options{Provider: ProviderAnthropic, Model: "m", Getenv: func(k string) string { return env[k] }}), DataDir: data, Now: time.Now}
	if _, err := z2.Run(context.Background(), ev); !errors.Is(err, ErrRefused) || len(api.Requests()) != n {
		t.Errorf("no key: %v, %d requests sent", err, len(api.Requests())-n)
	}
}

func TestClaudeResult(t *testing.T) {
	if r, err := claudeResult([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"x"}`)); err != nil || r != "x" {
		t.Errorf("%q %v", r, err)
	}
	if r, err := claudeResult([]byte(`[{"type":"system"},{"type":"result","subtype":"success","result":"y"}]`)); err != nil || r != "y" {
		t.Errorf("%q %v", r, err)
	}
	for _, bad := range []string{`{"type":"result","is_error":true,"result":"Invalid API key"}`, `not json`, `{"type":"assistant"}`} {
		if _, err := claudeResult([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

var _ = catalog.Summary{}

// A claude without --no-session-persistence is refused before anything
// is sent; one with it gets the headless flags and the input on stdin.
func TestClaudeProviderFlags(t *testing.T) {
	dir := t.TempDir()
	old := script(t, `case "$1" in --help) echo "  -p, --print"; exit 0;; esac; echo sent > "`+dir+`/sent"`)
	p, _ := New(Options{Provider: ProviderClaude, Bin: old, Env: os.Environ()})
	z := &Summarizer{Provider: p, DataDir: t.TempDir(), Now: time.Now}
	_, err := z.Run(context.Background(), testEvidence())
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "--no-session-persistence") {
		t.Errorf("old claude: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "sent")); serr == nil {
		t.Error("input sent to a claude that would persist it")
	}
	good := script(t, `case "$1" in --help) echo "  --no-session-persistence  Disable"; exit 0;; esac
printf '%s\n' "$@" > "`+dir+`/args"; cat > "`+dir+`/stdin"
echo '{"type":"result","subtype":"success","is_error":false,"result":"{\"title\":\"T\",\"objective\":\"\",\"completed\":\"\",\"currentWork\":\"\",\"likelyNext\":\"\"}"}'`)
	p, _ = New(Options{Provider: ProviderClaude, Bin: good, Model: "small-model", Env: os.Environ()})
	z = &Summarizer{Provider: p, DataDir: t.TempDir(), Now: time.Now}
	res, err := z.Run(context.Background(), testEvidence())
	if err != nil || res.Summary.Title != "T" || res.Summary.Model != "small-model" {
		t.Fatalf("run: %+v %v", res, err)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	for _, want := range []string{"-p\n", "--no-session-persistence\n", "--model\nsmall-model\n", "--output-format\njson\n", "--tools\n\n--system-prompt\n"} {
		if !strings.Contains(string(args), want) {
			t.Errorf("argv lacks %q:\n%s", want, args)
		}
	}
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if !strings.HasPrefix(string(stdin), "# Session evidence\n") || !strings.Contains(string(stdin), "PROMPT4") {
		t.Errorf("stdin: %.100q", stdin)
	}
}

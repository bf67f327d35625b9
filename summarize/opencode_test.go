package summarize

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// The reply of real `opencode run --format json` output is its text
// part; an error event fails it.
func TestOpenCodeText(t *testing.T) {
	out, err := os.ReadFile(testutil.Testdata(t, "opencode-1.18.33", "sample-run1-tool-call.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := openCodeText(out); err != nil || got != "Done. Tool said: hi-from-tool\nhello" {
		t.Errorf("text %q %v", got, err)
	}
	for name, body := range map[string]string{
		"error":   `{"type":"error","error":{"name":"APIError","data":{"message":"boom"}}}`,
		"no text": `{"type":"step_start","part":{"type":"step-start"}}`,
		"garbage": `not json`,
	} {
		if got, err := openCodeText([]byte(body)); err == nil {
			t.Errorf("%s: reply %q", name, got)
		}
	}
}

// The provider runs OpenCode with the input on stdin, a summary agent
// with every tool denied, a title (no title request) and a throw-away
// database in a private directory that is gone afterwards.
func TestOpenCodeProvider(t *testing.T) {
	dir := t.TempDir()
	reply, _ := json.Marshal(goodReply)
	bin := script(t, `[ "$1" = run ] && [ "$2" = --help ] && { echo "  --format  format"; exit 0; }
printf '%s\n' "$*" > "`+dir+`/args"; pwd > "`+dir+`/pwd"; cat > "`+dir+`/stdin"
printf '%s' "$OPENCODE_DB" > "`+dir+`/db"; printf '%s' "$OPENCODE_CONFIG_CONTENT" > "`+dir+`/config"
: > "$OPENCODE_DB"
printf '{"type":"text","part":{"id":"p1","type":"text","text":%s}}\n' '`+string(reply)+`'`)
	p, err := New(Options{Provider: ProviderOpenCode, Bin: bin, Model: "fake/small", Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	z := &Summarizer{Provider: p, DataDir: filepath.Join(dir, "data"), Budget: 2000, Now: time.Now}
	res, err := z.Run(context.Background(), testEvidence())
	if err != nil || res.Summary.Title != "Fix the parser" || res.Summary.Provider != ProviderOpenCode {
		t.Fatalf("run: %+v %v", res, err)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(dir, name)); return string(b) }
	if args := read("args"); args != "run --format json --agent tether-summary --title tether summary --model fake/small\n" {
		t.Errorf("args %q", args)
	}
	if stdin := read("stdin"); !strings.HasPrefix(stdin, "# Session evidence\n") || !strings.Contains(stdin, "PROMPT4") {
		t.Errorf("stdin %.200q", stdin)
	}
	db := read("db")
	if filepath.Dir(db) != strings.TrimSpace(read("pwd")) || !strings.Contains(db, "tether-summary-") {
		t.Errorf("OPENCODE_DB %q, run in %q", db, read("pwd"))
	}
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Errorf("the throw-away directory is left: %v", err)
	}
	var cfg struct {
		Agent map[string]struct {
			Prompt     string
			Permission map[string]string
		}
	}
	if err := json.Unmarshal([]byte(read("config")), &cfg); err != nil || cfg.Agent["tether-summary"].Prompt != Instructions ||
		cfg.Agent["tether-summary"].Permission["*"] != "deny" {
		t.Errorf("config %q %v", read("config"), err)
	}
}

// An OpenCode that ignores OPENCODE_DB (no database made there) wrote the
// run into the user's history: the summary is refused, nothing stored.
func TestOpenCodeProviderIgnoredDB(t *testing.T) {
	reply, _ := json.Marshal(goodReply)
	bin := script(t, `cat > /dev/null; printf '{"type":"text","part":{"id":"p1","type":"text","text":%s}}\n' '`+string(reply)+`'`)
	p, _ := New(Options{Provider: ProviderOpenCode, Bin: bin, Env: os.Environ()})
	if _, err := p.Summarize(context.Background(), Input{Text: "x"}); err == nil || !strings.Contains(err.Error(), "OPENCODE_DB") {
		t.Errorf("err %v", err)
	}
}

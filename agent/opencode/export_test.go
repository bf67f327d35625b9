package opencode_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode"
)

// fakeOpenCode is a script that answers export and import as OpenCode
// 1.18.33 does and records how it was run in log.
func fakeOpenCode(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "opencode"), filepath.Join(dir, "log")
	script := `#!/bin/sh
printf '%s|%s|%s|%s\n' "$*" "$PWD" "$OPENCODE_DB" "$XDG_DATA_HOME" >> '` + log + `'
case "$1 $2" in
"export ses_ok") echo "Exporting session: $2" >&2; printf '{"info":{"id":"ses_ok"},"messages":[]}\n' ;;
"export ses_other") printf '{"info":{"id":"ses_x"},"messages":[]}\n' ;;
"export "*) printf 'Exporting session: %s\n\033[91m\033[1mError: \033[0mSession not found: %s\n' "$2" "$2" >&2; exit 1 ;;
"import "*) echo "Imported session: ses_ok" ;;
esac
`
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func TestExportImport(t *testing.T) {
	bin, log := fakeOpenCode(t)
	data := filepath.Join(t.TempDir(), "share", "opencode")
	a := opencode.New(data, "")
	prog := agent.Program{Bin: bin, Env: []string{"PATH=/usr/bin:/bin"}}
	ctx := context.Background()
	out, err := a.Export(ctx, prog, "ses_ok")
	if err != nil || !strings.Contains(string(out), `"ses_ok"`) {
		t.Fatalf("export: %q %v", out, err)
	}
	if _, err := a.Export(ctx, prog, "ses_gone"); !errors.Is(err, agent.ErrNoSession) {
		t.Errorf("export of a deleted session: %v, want ErrNoSession", err)
	}
	if _, err := a.Export(ctx, prog, "ses_other"); err == nil || errors.Is(err, agent.ErrNoSession) {
		t.Errorf("export of another session's JSON accepted: %v", err)
	}
	for _, id := range []string{"--help", "ses_../x", "x"} {
		if _, err := a.Export(ctx, prog, id); err == nil {
			t.Errorf("export %q ran", id)
		}
	}
	proj := t.TempDir()
	if err := a.Import(ctx, prog, "/tmp/f.json", proj); err != nil {
		t.Fatal(err)
	}
	if err := a.Import(ctx, prog, "/tmp/f.json", filepath.Join(proj, "gone")); err == nil || !strings.Contains(err.Error(), "not there") {
		t.Errorf("import into a missing directory: %v", err)
	}
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// export runs point OpenCode at this agent's data; import runs in the
	// session's directory.
	wantDB := filepath.Join(data, opencode.DBName)
	if first := lines[0]; !strings.HasSuffix(first, "|"+wantDB+"|"+filepath.Dir(data)) {
		t.Errorf("export ran as %q, want OPENCODE_DB=%s XDG_DATA_HOME=%s", first, wantDB, filepath.Dir(data))
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "import /tmp/f.json|"+proj+"|") {
		t.Errorf("import ran as %q, want in %s", last, proj)
	}
}

// A program that does not exit is killed when the context ends.
func TestExportTimeout(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "opencode")
	os.WriteFile(bin, []byte("#!/bin/sh\nsleep 30 &\nwait\n"), 0o700)
	ctx, cancel := context.WithTimeout(context.Background(), 300e6)
	defer cancel()
	if _, err := opencode.New(t.TempDir(), "").Export(ctx, agent.Program{Bin: bin, Env: []string{}}, "ses_ok"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", err)
	}
}

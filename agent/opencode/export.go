package opencode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
)

// Export and import run OpenCode's own `opencode export ID` and
// `opencode import FILE`: tether never writes OpenCode's database, and
// never copies it (a copy of a WAL database taken while OpenCode writes
// can be torn). The export is {info, messages: [{info, parts}]}, the
// format import reads back.

// MaxExport caps an export held in memory: a session of a few thousand
// turns is tens of megabytes.
const MaxExport = 1 << 30

// exportWait bounds how long a program's pipes are waited for once it has
// exited or been killed.
const exportWait = 2 * time.Second

var _ agent.Exporter = (*Agent)(nil)

// Export implements agent.Exporter: `opencode export ID`, its JSON
// checked to be the session's.
func (a *Agent) Export(ctx context.Context, prog agent.Program, id string) ([]byte, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("opencode export: %q is not an OpenCode session id", id)
	}
	var out bytes.Buffer
	stderr, err := a.runCLI(ctx, prog, "", &out, "export", id)
	if err != nil {
		if strings.Contains(stderr, "Session not found") {
			return nil, fmt.Errorf("opencode export %s: %w", id, agent.ErrNoSession)
		}
		return nil, cliError("export "+id, err, stderr)
	}
	data := out.Bytes()
	if got := gjson.GetBytes(data, "info.id").String(); !gjson.ValidBytes(data) || got != id || !gjson.GetBytes(data, "messages").IsArray() {
		return nil, fmt.Errorf("opencode export %s: the output (%d bytes) is not the session's export", id, len(data))
	}
	return data, nil
}

// Import implements agent.Exporter: `opencode import FILE` run in dir,
// to which OpenCode binds the session (its project is dir's). OpenCode
// keeps the file's ids and skips rows it already has.
func (a *Agent) Import(ctx context.Context, prog agent.Program, file, dir string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("opencode import: the session's directory %s is not there (create it, then restore again): %w", dir, errNotDir(err))
	}
	stderr, err := a.runCLI(ctx, prog, dir, nil, "import", file)
	if err != nil {
		return cliError("import "+file, err, stderr)
	}
	return nil
}

// ExportStamp implements agent.Exporter: the session's time_updated and
// its message count, both in the reader's listing.
func (*Agent) ExportStamp(s agent.Session) (agent.ExportStamp, bool) {
	if s.Messages == nil || s.LastActivity.IsZero() {
		return agent.ExportStamp{}, false
	}
	return agent.ExportStamp{UpdatedNano: s.LastActivity.UnixNano(), Messages: int64(*s.Messages)}, true
}

// ValidID reports a plausible OpenCode session id: "ses_" and base62,
// nothing that could be a flag or a path.
func ValidID(id string) bool {
	rest, ok := strings.CutPrefix(id, "ses_")
	if !ok || rest == "" || len(id) > 128 {
		return false
	}
	for _, c := range rest {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// runCLI runs prog with args in dir ("": the temp dir, where no project
// is picked up), its stdout to out (nil: discarded), in its own process
// group killed whole when ctx ends. It returns the end of stderr.
func (a *Agent) runCLI(ctx context.Context, prog agent.Program, dir string, out *bytes.Buffer, args ...string) (string, error) {
	if prog.Bin == "" {
		return "", errors.New("opencode not found on PATH (set TETHER_OPENCODE_BIN)")
	}
	cmd := exec.CommandContext(ctx, prog.Bin, args...)
	cmd.Dir = dir
	if dir == "" {
		cmd.Dir = os.TempDir()
	}
	cmd.Env = a.cliEnv(prog.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = exportWait
	var errb tailBuffer
	cmd.Stderr = &errb
	if out != nil {
		cmd.Stdout = &capWriter{b: out, max: MaxExport}
	}
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // a child left behind
	}
	if ctx.Err() != nil {
		return errb.String(), ctx.Err()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // exited 0; a child held the pipes after it
	}
	return errb.String(), err
}

// cliEnv is env (nil: this process's) pointing OpenCode at the data this
// Agent reads: its database (OPENCODE_DB) and, when home is the usual
// <XDG_DATA_HOME>/opencode, that data directory.
func (a *Agent) cliEnv(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	env = append(env[:len(env):len(env)], "OPENCODE_DISABLE_AUTOUPDATE=1")
	if a.home != "" && filepath.Base(a.home) == "opencode" {
		env = append(env, "XDG_DATA_HOME="+filepath.Dir(a.home))
	}
	if a.db != "" {
		env = append(env, "OPENCODE_DB="+a.db)
	}
	return env
}

func cliError(what string, err error, stderr string) error {
	if line := lastLine(stderr); line != "" {
		return fmt.Errorf("opencode %s: %v: %s", what, err, line)
	}
	return fmt.Errorf("opencode %s: %w", what, err)
}

func errNotDir(err error) error {
	if err == nil {
		return errors.New("not a directory")
	}
	return err
}

// lastLine is the last non-empty line of s without its ANSI colours
// (OpenCode colours "Error:"), at most 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(stripANSI(s)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300]
	}
	return l
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 64<<10; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// capWriter fails once more than max bytes were written: the program is
// then killed by its broken pipe rather than filling memory.
type capWriter struct {
	b   *bytes.Buffer
	max int
}

func (c *capWriter) Write(p []byte) (int, error) {
	if c.b.Len()+len(p) > c.max {
		return 0, fmt.Errorf("output larger than %d MiB", c.max>>20)
	}
	return c.b.Write(p)
}

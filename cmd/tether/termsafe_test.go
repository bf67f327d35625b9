package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/internal/testkit/claudetest"
)

// hostile is what the review put into titles and directory names: a
// window title, a clipboard write, a screen clear, a C1 CSI byte and a
// right-to-left override.
const hostile = "x\x1b]0;pwned-title\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eevil"

const hostileID = "0badc0de-07d6-4b50-9048-40676f77f965"

// withHostileSession writes a Claude Code session whose cwd (an existing
// directory) and custom title are hostile, and returns the cwd.
func withHostileSession(t *testing.T, ta *testApp) string {
	t.Helper()
	cwd := filepath.Join(ta.home, "src", hostile)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	name, _ := claude.ProjectDirName(cwd)
	q := claudetest.RawJSONString
	lines := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":` + q("find parser "+hostile) + `},"uuid":"u1","timestamp":"2026-11-30T10:54:17.279Z","cwd":` + q(cwd) + `,"sessionId":"` + hostileID + `","version":"2.1.332","gitBranch":` + q("br"+hostile) + `}`,
		`{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"role":"assistant","model":"claude-opus-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}},"uuid":"a1","timestamp":"2026-11-30T10:54:18.279Z","cwd":` + q(cwd) + `,"sessionId":"` + hostileID + `","version":"2.1.332"}`,
		`{"type":"custom-title","customTitle":` + q("parser "+hostile) + `,"sessionId":"` + hostileID + `"}`,
	}
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "projects", name, hostileID+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"))
	return cwd
}

// assertTerminalSafe fails when out holds a raw control other than the
// newlines and tabs that lay it out.
func assertTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if !termsafe.Safe(strings.NewReplacer("\n", "", "\t", "").Replace(out)) {
		t.Errorf("%s prints raw controls:\n%q", what, out)
	}
}

// Issue 13 item 8: every human-readable output escapes controls; --json
// stays exact; resume --print is shell code that lands in the directory.
func TestHumanOutputIsTerminalSafe(t *testing.T) {
	ta := newTestApp(t)
	cwd := withHostileSession(t, ta)
	// A log record with hostile values, as the wrapper writes for a cwd.
	ta.Log().Info("spawn", hostileID, slog.String("cwd", cwd), slog.String("resume", hostile))
	put(t, filepath.Join(ta.env["CLAUDE_CONFIG_DIR"], "settings.json"), []byte(`{"statusLine":{"type":"command","command":`+claudetest.RawJSONString(hostile)+`}}`))
	for _, args := range [][]string{
		{"sessions", "list"},
		{"sessions", "show", hostileID[:8]},
		{"sessions", "search", "parser"},
		{"sessions", "resume", hostileID[:8], "--print"},
		{"identity", cwd},
		{"log"},
		{"doctor"},
		{"hooks", "install", "--statusline", "--claude-version", "2.1.332", "--dry-run"},
		{"sessions", "show", "\x1b]0;bad-id\x07"},
	} {
		ta.out.Reset()
		ta.err.Reset()
		ta.run(args...)
		assertTerminalSafe(t, strings.Join(args, " ")+" (stdout)", ta.out.String())
		assertTerminalSafe(t, strings.Join(args, " ")+" (stderr)", ta.err.String())
		if args[0] == "log" && !strings.Contains(ta.out.String(), "spawn") {
			t.Errorf("log shows no record:\n%s", ta.out)
		}
		if len(args) > 1 && args[1] == "list" && !strings.Contains(ta.out.String(), `\x1b]0;pwned-title\x07`) {
			t.Errorf("the title is not shown escaped:\n%s", ta.out)
		}
	}
	ta.out.Reset()
	ta.run("sessions", "show", hostileID[:8], "--json")
	var got struct {
		Cwd   string `json:"cwd"`
		Title string `json:"title"`
	}
	// Exact but for the byte that is not UTF-8, which JSON cannot carry
	// (encoding/json writes U+FFFD for it).
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	if err := json.Unmarshal(ta.out.Bytes(), &got); err != nil || got.Cwd != valid(cwd) || got.Title != valid("parser "+hostile) {
		t.Errorf("--json not exact: %v %q %q", err, got.Cwd, got.Title)
	}

	ta.out.Reset()
	ta.run("sessions", "resume", hostileID[:8], "--print")
	cmd := strings.TrimSpace(ta.out.String())
	for _, sh := range []string{"bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		// The printed line with claude replaced by a printer of $PWD.
		line := strings.Replace(cmd, " && claude ", " && printf '%s' \"$PWD\" # ", 1)
		out, err := exec.Command(sh, "-c", line).Output()
		if err != nil || string(out) != cwd {
			t.Errorf("%s: %s\nlanded in %q, want %q (%v)", sh, cmd, out, cwd, err)
		}
	}
}

//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/e2e/harness"
	"github.com/tether-dev/tether/internal/testkit/claudetest"
	"github.com/tether-dev/tether/internal/testkit/fakeapi"
)

// hostileName is what issue 13 put into a session's title and directory:
// a window title (OSC 0), a clipboard write (OSC 52), a screen clear and a
// C1 CSI byte.
const hostileName = "x\x1b]0;pwned-title\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202eevil"

const hostileSession = "0badc0de-07d6-4b50-9048-40676f77f965"

// TestHostileSessionInTmux (issue 13 item 8): a session whose title and
// directory hold terminal escapes is listed, shown, searched and resolved
// with identity in bash, zsh and fish under tmux with set-clipboard on;
// the pane title and tmux's paste buffers must stay untouched. A raw
// OSC 52 printed afterwards does reach the clipboard, so the check can
// fail.
func TestHostileSessionInTmux(t *testing.T) {
	harness.RequireTmux(t)
	tether := harness.Tether(t)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(sh); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s not installed", sh)
				}
				t.Skipf("%s not installed", sh)
			}
			api, err := fakeapi.Start()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(api.Close)
			env := harness.NewEnv(t, api)
			env.Setenv("PATH", filepath.Dir(tether)+":"+os.Getenv("PATH"))
			cwd := filepath.Join(env.Home, "src", hostileName)
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			name, _ := claude.ProjectDirName(cwd)
			rec := func(kind, extra string) string {
				return `{"parentUuid":null,"isSidechain":false,"type":"` + kind + `",` + extra + `,"timestamp":"2026-11-30T10:54:17.279Z","cwd":` +
					claudetest.RawJSONString(cwd) + `,"sessionId":"` + hostileSession + `","version":"2.1.332"}`
			}
			transcript := strings.Join([]string{
				rec("user", `"uuid":"u1","message":{"role":"user","content":`+claudetest.RawJSONString("fix parser "+hostileName)+`}`),
				`{"type":"custom-title","customTitle":` + claudetest.RawJSONString("parser "+hostileName) + `,"sessionId":"` + hostileSession + `"}`,
			}, "\n") + "\n"
			write(t, filepath.Join(env.ClaudeConfigDir, "projects", name, hostileSession+".jsonl"), transcript)

			var argv []string
			switch sh {
			case "bash":
				argv = []string{"bash", "--norc", "--noprofile", "-i"}
			case "zsh":
				argv = []string{"zsh", "-f", "-i"}
			case "fish":
				argv = []string{"fish", "--no-config", "-i"}
			}
			tm := env.StartTmux(env.Home, argv[0], argv[1:]...)
			done := func(n int) string { return fmt.Sprintf("; echo DONE-$((%d+1))", n) }
			if sh == "fish" {
				// fish sets the title itself; keep it fixed.
				tm.SendText("function fish_title; echo clean-title; end")
				tm.SendKeys("Enter")
				done = func(n int) string { return fmt.Sprintf("; echo DONE-(math %d+1)", n) }
				tm.SendText("true" + done(0))
				tm.SendKeys("Enter")
				tm.WaitFor("DONE-1", shellWait)
				tm.SendText("clear")
				tm.SendKeys("Enter")
			}
			tm.Command("set-option", "-s", "set-clipboard", "on")
			tm.Command("select-pane", "-t", tm.Session, "-T", "clean-title")
			title := func() string {
				return strings.TrimSpace(tm.Command("display-message", "-p", "-t", tm.Session, "#{pane_title}"))
			}
			buffers := func() string { return strings.TrimSpace(tm.Command("list-buffers")) }
			if title() != "clean-title" || buffers() != "" {
				t.Fatalf("setup: title %q, buffers %q", title(), buffers())
			}
			for _, cmd := range []string{
				"tether sessions list",
				"tether sessions show 0badc0de",
				"tether sessions search parser",
				"tether sessions resume 0badc0de --print",
				"tether identity src/*evil",
				"tether sessions show 0badc0de --no-such-flag",
			} {
				tm.SendText(cmd + done(1))
				tm.SendKeys("Enter")
				tm.WaitFor("DONE-2", shellWait)
				if got := title(); got != "clean-title" {
					t.Errorf("%s: %q changed the pane title to %q", sh, cmd, got)
				}
				if got := buffers(); got != "" {
					t.Errorf("%s: %q wrote the clipboard: %s", sh, cmd, got)
				}
				tm.SendText("clear")
				tm.SendKeys("Enter")
			}
			if screen := tm.Capture(); strings.Contains(screen, "pwned") && !strings.Contains(screen, `\x1b]0;pwned-title`) {
				t.Errorf("%s: title text shown without its escapes:\n%s", sh, screen)
			}
			// The control: a raw OSC 52 does reach tmux's buffers here.
			tm.SendText(`printf '\033]52;c;cHduZWQ=\007'` + done(2))
			tm.SendKeys("Enter")
			tm.WaitFor("DONE-3", shellWait)
			if !strings.Contains(buffers(), "pwned") {
				t.Errorf("%s: a raw OSC 52 did not reach the buffers (%q): this test could not see a leak", sh, buffers())
			}
		})
	}
}

package hooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/codex"
)

// TestInstallableEvents: an entry under an event tether never installs
// (PreToolUse) is never tether's, whatever its command.
func TestInstallableEvents(t *testing.T) {
	if got := strings.Join(allEvents, ","); got != "SessionStart,Stop,StopFailure,PreCompact,PostCompact,SubagentStart,SubagentStop,SessionEnd,Interrupt" {
		t.Errorf("installable events %s", got)
	}
	in := []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"tether hook"}]}],"Stop":[{"hooks":[{"type":"command","command":"tether hook"}]}]}}`)
	if entries, err := Installed(in, Owner{Events: allEvents, Current: []string{"tether hook"}}); err != nil || len(entries) != 1 || entries[0].Event != "Stop" {
		t.Errorf("installed %+v %v", entries, err)
	}
}

const userSettings = `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/guard.sh"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": []
  },
  "zzz": 1
}
`

func TestInstallKeepsEverythingElseAndIsIdempotent(t *testing.T) {
	opts := InstallOptions{Command: "/usr/local/bin/tether hook", Events: claude.HookEvents, Timeout: HookTimeout}
	out, plan, err := Install([]byte(userSettings), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Added) != len(claude.HookEvents) {
		t.Errorf("plan: %+v", plan)
	}
	// Other hooks, keys and their order survive; the canonical style is
	// kept.
	s := string(out)
	for _, want := range []string{`"command": "~/bin/guard.sh"`, `"command": "notify-send done"`, `"matcher": "Bash"`, `"allow": []`} {
		if !strings.Contains(s, want) {
			t.Errorf("lost %s:\n%s", want, s)
		}
	}
	if strings.Index(s, `"model"`) > strings.Index(s, `"hooks"`) || strings.Index(s, `"permissions"`) > strings.Index(s, `"zzz"`) {
		t.Errorf("key order changed:\n%s", s)
	}
	if !strings.HasPrefix(s, "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PreToolUse\": [") || !strings.HasSuffix(s, "}\n") {
		t.Errorf("style changed:\n%s", s)
	}
	// Stop has the user's group first, tether's appended.
	stop := gjson.Get(s, "hooks.Stop").Array()
	if len(stop) != 2 || stop[1].Get("hooks.0.command").String() != opts.Command || stop[1].Get("hooks.0.timeout").Int() != HookTimeout {
		t.Errorf("Stop: %s", gjson.Get(s, "hooks.Stop").Raw)
	}
	again, plan2, err := Install(out, opts)
	if err != nil || string(again) != string(out) || plan2.Changed() {
		t.Errorf("second install changed the file: %+v\n%s", plan2, again)
	}
	// Uninstall restores the original byte for byte.
	back, plan3, err := Uninstall(out, Owner{Events: allEvents, Current: []string{opts.Command}}, "")
	if err != nil || string(back) != userSettings {
		t.Errorf("uninstall: %v %+v\n%s", err, plan3, back)
	}
}

func TestInstallDowngradeDropsUnknownEventsAndMovedBinary(t *testing.T) {
	full, _, _ := Install(nil, InstallOptions{Command: "/old/tether hook", Events: claude.HookEvents, Timeout: HookTimeout})
	out, plan, err := Install(full, InstallOptions{Command: "/new/tether hook", Events: claude.ClassicHookEvents, Timeout: HookTimeout,
		Owner: Owner{Events: allEvents, Recorded: []string{"/old/tether hook"}}})
	if err != nil {
		t.Fatal(err)
	}
	h := gjson.GetBytes(out, "hooks")
	if len(h.Map()) != len(claude.ClassicHookEvents) || h.Get("StopFailure").Exists() || h.Get("PostCompact").Exists() {
		t.Errorf("events after downgrade: %s", h.Raw)
	}
	if len(plan.Updated) != len(claude.ClassicHookEvents) || h.Get("Stop.0.hooks.0.command").String() != "/new/tether hook" {
		t.Errorf("plan %+v: %s", plan, h.Raw)
	}
	// A fresh file is written in Claude's own style.
	if !strings.HasPrefix(string(full), "{\n  \"hooks\": {\n") {
		t.Errorf("fresh file:\n%s", full)
	}
	back, _, _ := Uninstall(out, Owner{Events: allEvents, Recorded: []string{"/old/tether hook", "/new/tether hook"}}, "")
	if strings.TrimSpace(string(back)) != "{}" {
		t.Errorf("uninstall of a tether-only file: %q", back)
	}
}

func TestInstallHandFormattedFile(t *testing.T) {
	in := `{"model":"opus",   "hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`
	out, _, err := Install([]byte(in), InstallOptions{Command: "tether hook", Events: []string{"Stop"}, Timeout: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `{"model":"opus",   "hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]},`) {
		t.Errorf("hand formatting lost: %s", out)
	}
	back, _, _ := Uninstall(out, Owner{Events: allEvents, Current: []string{"tether hook"}}, "")
	if string(back) != in {
		t.Errorf("uninstall: %s", back)
	}
}

func TestInstallRefusesMalformed(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"a\": 1,\n  \"b\": \n}\n": "line 4",
		`[1,2]`:                          "not a JSON object",
		`{"hooks": []}`:                  `"hooks" is not an object`,
		`{"hooks": {"Stop": {}}}`:        `"hooks.Stop" is not an array`,
	} {
		_, _, err := Install([]byte(in), InstallOptions{Command: "tether hook", Events: []string{"Stop"}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	var pe *ParseError
	if _, _, err := Uninstall([]byte("{,}"), Owner{Events: allEvents}, ""); !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("uninstall malformed: %v", err)
	}
}

func TestStatusLineNeverReplacedWithoutForce(t *testing.T) {
	in := []byte(`{"statusLine":{"type":"command","command":"~/my-line.sh"}}`)
	out, plan, _ := Install(in, InstallOptions{Command: "tether hook", Events: []string{"Stop"}, StatusLine: "tether statusline"})
	if plan.StatusLine != "kept-user" || gjson.GetBytes(out, "statusLine.command").String() != "~/my-line.sh" {
		t.Errorf("without --force: %+v %s", plan, out)
	}
	out, plan, _ = Install(in, InstallOptions{Command: "tether hook", Events: []string{"Stop"}, StatusLine: "tether statusline", Force: true})
	if plan.StatusLine != "updated" || gjson.GetBytes(out, "statusLine.command").String() != "tether statusline" {
		t.Errorf("with --force: %+v %s", plan, out)
	}
	back, plan, _ := Uninstall(out, Owner{Events: allEvents, Current: []string{"tether statusline"}}, "")
	if plan.StatusLine != "removed" || gjson.GetBytes(back, "statusLine").Exists() {
		t.Errorf("uninstall statusLine: %s", back)
	}
}

// allEvents are the events tether installs for any agent (Owner.Events).
var allEvents = InstallableEvents(testAgents("", ""))

func TestOwnerOwnsOnlyItsCommands(t *testing.T) {
	// Only the exact command this tether writes is its own.
	own := Owner{Events: allEvents, Current: []string{"/usr/bin/tether hook"}}
	for c, want := range map[string]bool{"/usr/bin/tether hook": true, "/opt/other/tether hook": false,
		"tether statusline": false, "nottether hook": false, "/x/tether": false, "tether hook": false,
		"/usr/bin/tether hook; echo mine-too": false, "/usr/bin/tether hook --harness claude": false, "/usr/bin/tether  hook": false} {
		if own.Owns(c, "hook") != want {
			t.Errorf("Owns(%q) != %v", c, want)
		}
	}
	// With a record, only what it lists (and this tether's command).
	rec := Owner{Events: allEvents, Recorded: []string{"/old/tether hook"}, Current: []string{"/new/tether hook"}}
	for c, want := range map[string]bool{"/old/tether hook": true, "/new/tether hook": true, "/other/tether hook": false} {
		if rec.Owns(c, "hook") != want {
			t.Errorf("recorded Owns(%q) != %v", c, want)
		}
	}
}

func TestCodexTimeoutsPerEvent(t *testing.T) {
	out, _, _ := Install(nil, InstallOptions{Command: "tether hook --harness codex", Events: codex.HookEvents, Timeout: HookTimeout, Timeouts: codex.HookTimeouts()})
	if gjson.GetBytes(out, "hooks.SessionEnd.0.hooks.0.timeout").Int() != 1 || gjson.GetBytes(out, "hooks.Stop.0.hooks.0.timeout").Int() != HookTimeout {
		t.Errorf("timeouts: %s", out)
	}
	again, plan, _ := Install(out, InstallOptions{Command: "tether hook --harness codex", Events: codex.HookEvents, Timeout: HookTimeout, Timeouts: codex.HookTimeouts()})
	if plan.Changed() || string(again) != string(out) {
		t.Errorf("not idempotent with per-event timeouts: %+v", plan)
	}
}

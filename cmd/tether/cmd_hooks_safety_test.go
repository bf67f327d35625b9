package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/state"
)

// symlinkInto moves path into a dotfiles directory and leaves a symlink in
// its place, as stow or chezmoi do. It returns the target.
func symlinkInto(t *testing.T, path, dotfiles, content string) string {
	t.Helper()
	target := filepath.Join(dotfiles, filepath.Base(path))
	if err := os.WriteFile(target, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return target
}

// withTetherOnPath puts a file named tether first on PATH, so install
// writes commands that name it.
func withTetherOnPath(t *testing.T, ta *testApp) string {
	t.Helper()
	bin := filepath.Join(ta.home, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tether"), []byte("#!/bin/sh\n"), 0o755)
	ta.env["PATH"] = bin
	return filepath.Join(bin, "tether")
}

func assertLink(t *testing.T, path string) {
	t.Helper()
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink (%v)", path, err)
	}
}

// Issue 13 item 3: hooks install writes through symlinked settings.json,
// hooks.json and config.toml, keeping the links.
func TestHooksInstallThroughSymlinks(t *testing.T) {
	ta := newTestApp(t)
	withTetherOnPath(t, ta)
	dots := filepath.Join(ta.home, "dotfiles")
	os.MkdirAll(dots, 0o700)
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	sTarget := symlinkInto(t, settings, dots, "{\n  \"model\": \"opus\"\n}\n")
	if code := ta.run("hooks", "install", "--claude-version", "2.1.332", "--statusline"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	assertLink(t, settings)
	if data, _ := os.ReadFile(sTarget); !gjson.GetBytes(data, "hooks.Stop").Exists() || gjson.GetBytes(data, "model").String() != "opus" {
		t.Errorf("target not updated: %s", data)
	}
	if _, err := os.Stat(sTarget + ".bak"); err != nil {
		t.Errorf("no backup next to the target: %v", err)
	}

	hooksJSON := filepath.Join(ta.home, ".codex", "hooks.json")
	cfg := filepath.Join(ta.home, ".codex", "config.toml")
	hTarget := symlinkInto(t, hooksJSON, dots, "{}\n")
	cTarget := symlinkInto(t, cfg, dots, "model = \"o4\"\n")
	if code := ta.run("hooks", "install", "--harness", "codex", "--trust"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	assertLink(t, hooksJSON)
	assertLink(t, cfg)
	if data, _ := os.ReadFile(hTarget); !gjson.GetBytes(data, "hooks.Stop").Exists() {
		t.Errorf("hooks.json target not updated: %s", data)
	}
	if data, _ := os.ReadFile(cTarget); !strings.Contains(string(data), "trusted_hash") || !strings.Contains(string(data), "model = \"o4\"") {
		t.Errorf("config.toml target not updated: %s", data)
	}

	if code := ta.run("hooks", "uninstall"); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, ta.err)
	}
	assertLink(t, settings)
	if data, _ := os.ReadFile(sTarget); string(data) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("after uninstall: %q", data)
	}
}

// Issue 13 item 5: Claude's JSON.parse keeps the last of duplicate keys
// while an in-place edit changes the first, so a file with duplicates is
// refused (exit 4, byte-identical, one line naming the file).
func TestHooksRefusesDuplicateKeys(t *testing.T) {
	for name, content := range map[string]string{
		"hooks":  "{\n  \"hooks\": {},\n  \"model\": \"opus\",\n  \"hooks\": {\"Stop\": []}\n}\n",
		"nested": "{\n  \"hooks\": {\n    \"Stop\": [],\n    \"Stop\": []\n  }\n}\n",
		"status": "{\"statusLine\": {\"type\": \"command\", \"command\": \"a\", \"command\": \"b\"}}",
	} {
		t.Run(name, func(t *testing.T) {
			ta := newTestApp(t)
			settings := filepath.Join(ta.home, ".claude", "settings.json")
			os.MkdirAll(filepath.Dir(settings), 0o700)
			os.WriteFile(settings, []byte(content), 0o600)
			for _, args := range [][]string{{"hooks", "install", "--claude-version", "2.1.332", "--statusline"}, {"hooks", "uninstall"}} {
				ta.err.Reset()
				code := ta.run(args...)
				msg := ta.err.String()
				if code != 4 || !strings.Contains(msg, settings) || !strings.Contains(msg, "duplicate key") || strings.Count(msg, "\n") != 1 {
					t.Errorf("%v: exit %d, stderr %q", args, code, msg)
				}
				if data, _ := os.ReadFile(settings); string(data) != content {
					t.Errorf("%v: file changed: %q", args, data)
				}
			}
		})
	}
}

// Issue 13 item 4 and issue 14 item 7: install and uninstall touch only
// what tether wrote — never a user's compound command, another binary's
// tether hook or a hand-added "tether hook" — and uninstall puts back the
// statusLine a forced install replaced, however often install ran.
func TestHooksUninstallRemovesOnlyTethersOwn(t *testing.T) {
	ta := newTestApp(t)
	withTetherOnPath(t, ta)
	settings := filepath.Join(ta.home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	orig := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "tether hook --harness claude; echo mine-too"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/other/tether hook"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "tether hook"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "npx ccstatusline@latest",
    "padding": 0
  }
}
`
	os.WriteFile(settings, []byte(orig), 0o600)
	for i := range 2 {
		if code := ta.run("hooks", "install", "--claude-version", "2.1.332", "--statusline", "--force"); code != 0 {
			t.Fatalf("install %d: exit %d: %s", i, code, ta.err)
		}
	}
	data, _ := os.ReadFile(settings)
	for path, want := range map[string]string{
		"hooks.Stop.0.hooks.0.command":         "tether hook --harness claude; echo mine-too",
		"hooks.SessionStart.0.hooks.0.command": "/opt/other/tether hook",
		"hooks.PostToolUse.0.hooks.0.command":  "tether hook",
	} {
		if got := gjson.GetBytes(data, path).String(); got != want {
			t.Errorf("install changed %s to %q", path, got)
		}
	}
	if n := len(gjson.GetBytes(data, "hooks.Stop").Array()); n != 2 {
		t.Errorf("install did not add its own Stop entry beside the user's (%d groups)", n)
	}
	if !strings.HasSuffix(gjson.GetBytes(data, "statusLine.command").String(), " statusline") {
		t.Errorf("statusLine not replaced with --force: %s", gjson.GetBytes(data, "statusLine").Raw)
	}
	if code := ta.run("hooks", "uninstall"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, ta.err)
	}
	if data, _ := os.ReadFile(settings); string(data) != orig {
		t.Errorf("uninstall did not give back the user's file:\n%s", data)
	}
}

// Issue 13 item 9: a relative TETHER_IDENTITY_ROOT is not used; identity
// says why and the log records it.
func TestIdentityIgnoresRelativePin(t *testing.T) {
	ta := newTestApp(t)
	ta.env["TETHER_IDENTITY_ROOT"] = "src/project"
	if code := ta.run("identity"); code != 0 {
		t.Fatalf("exit %d: %s", code, ta.err)
	}
	out := ta.out.String()
	if strings.Contains(out, "root:         src/project") || !strings.Contains(out, "ignored:      $TETHER_IDENTITY_ROOT is not an absolute path") {
		t.Errorf("relative pin used or not explained:\n%s", out)
	}

	if log, _ := os.ReadFile(state.EventLogPath(ta.Loc.StateDir)); !strings.Contains(string(log), "identity_pin_ignored") {
		t.Errorf("not logged: %s", log)
	}
}

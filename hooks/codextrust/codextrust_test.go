package codextrust

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/codex"
	"github.com/tether-dev/tether/hooks"
)

func TestCodexTrust(t *testing.T) {
	hooksJSON, _, err := hooks.Install(nil, hooks.InstallOptions{Command: "/usr/bin/tether hook --harness codex", Events: []string{"Stop", "SessionEnd"}, Timeout: 5})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := CodexTrust("/home/example/.codex/hooks.json", hooksJSON, hooks.Owner{Events: hooks.InstallableEvents(agent.Registry{codex.New("")}), Current: []string{"/usr/bin/tether hook --harness codex"}})
	if err != nil || len(entries) != 2 {
		t.Fatalf("%v %v", entries, err)
	}
	// sha256 of the compact sorted-key group, computed independently.
	wantStop := sha256Hex(`{"event_name":"stop","hooks":[{"async":false,"command":"/usr/bin/tether hook --harness codex","timeout":5,"type":"command"}]}`)
	for _, e := range entries {
		if e.Key == "/home/example/.codex/hooks.json:stop:0:0" && e.Hash != "sha256:"+wantStop {
			t.Errorf("stop hash %s, want %s", e.Hash, wantStop)
		}
		if !strings.HasPrefix(e.Key, "/home/example/.codex/hooks.json:") || (!strings.Contains(e.Key, ":stop:") && !strings.Contains(e.Key, ":session_end:")) {
			t.Errorf("key %s", e.Key)
		}
	}
	cfg := "model = \"gpt\"\n\n[hooks.state.\"/other:stop:0:0\"]\ntrusted_hash = \"sha256:aa\"\n"
	out, err := ApplyCodexTrust([]byte(cfg), entries)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := ApplyCodexTrust(out, entries)
	if string(again) != string(out) || !strings.HasPrefix(string(out), cfg) {
		t.Errorf("apply:\n%s\nagain:\n%s", out, again)
	}
	if back := RemoveCodexTrust(out, entries); string(back) != cfg {
		t.Errorf("remove:\n%q\nwant\n%q", back, cfg)
	}
	if _, err := ApplyCodexTrust([]byte("model = = 1"), entries); err == nil {
		t.Error("malformed config.toml edited")
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

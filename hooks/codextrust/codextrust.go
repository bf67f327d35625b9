// Package codextrust writes and checks the trust records Codex needs
// before it runs hooks (in its config.toml). A package of its own, used
// by tether's hooks install and doctor: it parses TOML, which the hook
// path (tether-hot) must not link (its package init runs at every start).
package codextrust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/tether-dev/tether/hooks"

	"github.com/pelletier/go-toml/v2"
	"github.com/tidwall/gjson"
)

// Codex runs hooks only once the user trusted them. Trust lives in
// config.toml as
//
//	[hooks.state."<abs hooks file>:<event_snake>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// where the hash covers the compact, sorted-key JSON of the handler's group.
// tether writes these only on an explicit --trust: trusting hooks on the
// user's behalf skips Codex's own review.

// codexDefaultTimeout is what Codex assumes for a handler without one
// (1 s for SessionEnd and Interrupt).
func codexDefaultTimeout(event string) int64 {
	if event == "SessionEnd" || event == "Interrupt" {
		return 1
	}
	return 600
}

// Snake turns an event name into Codex's snake_case (PreCompact →
// pre_compact).
func Snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TrustEntry is one trust record for config.toml.
type TrustEntry struct {
	Key  string // <abs hooks file>:<event_snake>:<group>:<handler>
	Hash string // sha256:<hex>
}

// CodexTrust computes the trust records for tether's entries in the hooks
// file at hooksPath (its content is data).
func CodexTrust(hooksPath string, data []byte, owner hooks.Owner) ([]TrustEntry, error) {
	entries, err := hooks.Installed(data, owner)
	if err != nil {
		return nil, err
	}
	var out []TrustEntry
	for _, e := range entries {
		g := gjson.GetBytes(data, fmt.Sprintf("hooks.%s.%d", e.Event, e.Group))
		h, err := groupHash(e.Event, g)
		if err != nil {
			return nil, err
		}
		out = append(out, TrustEntry{Key: fmt.Sprintf("%s:%s:%d:%d", hooksPath, Snake(e.Event), e.Group, e.Handler), Hash: h})
	}
	return out, nil
}

// groupHash is sha256 over {"event_name", "hooks":[{async, command,
// timeout, type}], "matcher"?} with sorted keys and no spaces.
func groupHash(event string, g gjson.Result) (string, error) {
	var handlers []map[string]any
	for _, h := range g.Get("hooks").Array() {
		timeout := codexDefaultTimeout(event)
		if t := h.Get("timeout"); t.Exists() {
			timeout = t.Int()
		}
		handlers = append(handlers, map[string]any{
			"async": h.Get("async").Bool(), "command": h.Get("command").String(),
			"timeout": timeout, "type": h.Get("type").String(),
		})
	}
	obj := map[string]any{"event_name": Snake(event), "hooks": handlers}
	if m := g.Get("matcher"); m.Exists() {
		obj["matcher"] = m.Value()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // maps encode with sorted keys
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func trustHeader(key string) string { return "[hooks.state." + strconv.Quote(key) + "]" }

// ApplyCodexTrust adds or updates trust records in config.toml's content,
// leaving everything else as it is. The result must parse as TOML, else
// the edit is refused.
func ApplyCodexTrust(config []byte, entries []TrustEntry) ([]byte, error) {
	if err := toml.Unmarshal(config, new(map[string]any)); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	lines := strings.Split(string(config), "\n")
	for _, e := range entries {
		header := trustHeader(e.Key)
		value := "trusted_hash = " + strconv.Quote(e.Hash)
		found := false
		for i, l := range lines {
			if strings.TrimSpace(l) != header {
				continue
			}
			found = true
			j := i + 1
			for ; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "["); j++ {
				if strings.HasPrefix(strings.TrimSpace(lines[j]), "trusted_hash") {
					lines[j] = value
					break
				}
			}
			if j == len(lines) || strings.HasPrefix(strings.TrimSpace(lines[j]), "[") {
				lines = append(lines[:i+1], append([]string{value}, lines[i+1:]...)...)
			}
			break
		}
		if !found {
			if n := len(lines); n > 0 && lines[n-1] == "" {
				lines = lines[:n-1]
			}
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, header, value, "")
		}
	}
	out := []byte(strings.Join(lines, "\n"))
	if err := toml.Unmarshal(out, new(map[string]any)); err != nil {
		return nil, fmt.Errorf("editing would break config.toml (%v); nothing written", err)
	}
	return out, nil
}

// RemoveCodexTrust removes the trust records tether wrote for hooksPath.
func RemoveCodexTrust(config []byte, entries []TrustEntry) []byte {
	lines := strings.Split(string(config), "\n")
	for _, e := range entries {
		header := trustHeader(e.Key)
		for i := 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) != header {
				continue
			}
			end := i + 1
			if end < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[end]), "trusted_hash") {
				end++
			}
			// Only a table tether wrote (header + hash) is removed whole.
			if end < len(lines) && strings.TrimSpace(lines[end]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[end]), "[") {
				break
			}
			start := i
			if start > 0 && lines[start-1] == "" {
				start--
			}
			lines = append(lines[:start], lines[end:]...)
			break
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

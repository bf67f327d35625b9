package app

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/shellinit"
)

// rootStatePath is the one small file the hooks keep for an identity
// root's latest session: <stateDir>/roots/<sha256(root)[:12]>.json.
//
// MERGE(hooks): replace the body of both functions with hooks.RootPath and
// hooks.LatestForRoot; the format below is the hooks package's State.
func rootStatePath(stateDir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(stateDir, "roots", hex.EncodeToString(sum[:12])+".json")
}

// latestUsage reads the context use of root's latest session. ok is false
// when no session has reported usage for root.
func latestUsage(stateDir, root string) (u shellinit.Usage, ok bool, err error) {
	path := rootStatePath(stateDir, root)
	data, err := os.ReadFile(path)
	if err != nil {
		return u, false, err
	}
	var s struct {
		Harness      string  `json:"harness"`
		IdentityRoot string  `json:"identity_root"`
		Model        string  `json:"model"`
		Tokens       int64   `json:"tokens"`
		Window       int64   `json:"window"`
		Percent      float64 `json:"percent"`
		UsageKnown   bool    `json:"usage_known"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return u, false, fmt.Errorf("%s: %w", path, err)
	}
	if s.IdentityRoot != root {
		return u, false, fmt.Errorf("%s: indexes %q, not %q: %w", path, s.IdentityRoot, root, fs.ErrNotExist)
	}
	if !s.UsageKnown {
		return u, false, nil
	}
	return shellinit.Usage{Harness: s.Harness, Model: s.Model, Tokens: s.Tokens, Window: s.Window, Percent: s.Percent}, true, nil
}

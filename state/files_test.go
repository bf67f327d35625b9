package state

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"testing"
)

// Root index files users already have were named by crypto/sha256: the
// name must not change with the hash's implementation.
func TestRootPathName(t *testing.T) {
	for _, root := range []string{"/home/example/proj", "/home/example/a dir with spaces/ünïcode", ""} {
		sum := sha256.Sum256([]byte(root))
		want := filepath.Join("/state", "roots", hex.EncodeToString(sum[:12])+".json")
		if got := RootPath("/state", root); got != want {
			t.Errorf("RootPath(%q) = %s, want %s", root, got, want)
		}
	}
}

package hot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindRealSkipsBothBinaries: a claude link to tether-hot is not the
// real claude for tether, nor a link to tether for tether-hot.
func TestFindRealSkipsBothBinaries(t *testing.T) {
	dir := t.TempDir()
	bin, links, real := filepath.Join(dir, "bin"), filepath.Join(dir, "links"), filepath.Join(dir, "real")
	for _, d := range []string{bin, links, real} {
		os.MkdirAll(d, 0o755)
	}
	tether, hot := filepath.Join(bin, "tether"), filepath.Join(bin, Name)
	os.WriteFile(tether, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(hot, []byte("#!/bin/sh\n#hot\n"), 0o755)
	os.WriteFile(filepath.Join(real, "claude"), []byte("#!/bin/sh\n"), 0o755)
	env := map[string]string{"PATH": links + ":" + real}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct{ self, link string }{{tether, hot}, {hot, tether}} {
		os.Remove(filepath.Join(links, "claude"))
		os.Symlink(tc.link, filepath.Join(links, "claude"))
		got, err := findReal("claude", getenv, tc.self, filepath.Join(dir, "shims"))
		if err != nil || got != filepath.Join(real, "claude") {
			t.Errorf("self %s, claude -> %s: got %q %v, want the real one", filepath.Base(tc.self), filepath.Base(tc.link), got, err)
		}
	}
}

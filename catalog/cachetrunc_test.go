package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheTruncatedInPlace (issue 23, item 11): a cache file truncated in
// place (not replaced by rename, as tether writes it) while a reader holds
// what it decoded must not crash that reader: the decoded strings live in
// memory of the process, not in a mapping of the file.
func TestCacheTruncatedInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog-claude-code.gob")
	want := sampleCacheFile()
	if err := os.WriteFile(path, encodeCache(want), 0o600); err != nil {
		t.Fatal(err)
	}
	c := OpenCache(path)
	key := "/home/example/.claude/projects/p/a.jsonl"
	sum, _, _, ok := c.claudeAny(key)
	if !ok {
		t.Fatal("the cache did not load")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	// Reading the strings after the truncation (a fault, before).
	got := strings.Clone(sum.FirstPrompt) + strings.Clone(sum.Cwd)
	if w := want.Entries[key].Claude; got != w.FirstPrompt+w.Cwd {
		t.Errorf("after truncation: %q", got)
	}
}

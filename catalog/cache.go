package catalog

import (
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/agent/scan"
)

// CacheFiles are the cache files readers keep under dir, their usage
// counts' included (beside each, named -usage.gob), and tether usage's
// ledgers; ClearCache removes them.
func CacheFiles(dir string) []string {
	out := []string{CacheFile(dir, ClaudeCode), CacheFile(dir, Codex), CacheFile(dir, OpenCode)}
	for _, h := range []string{ClaudeCode, Codex, OpenCode} {
		// The usage caches of the live readers and of the archive's.
		out = append(out, filepath.Join(dir, "catalog-"+h+"-usage.gob"), filepath.Join(dir, "catalog-archive-"+h+"-usage.gob"))
		out = append(out, UsageLedgerFile(dir, h), UsageLedgerFile(dir, h)+".keys")
	}
	return out
}

// UsageLedgerFile is where tether usage keeps harness's count between
// reports (usage.Ledger; its keys file is beside it, + ".keys").
func UsageLedgerFile(dir, harness string) string {
	return filepath.Join(dir, "usage-"+harness+".ledger")
}

// CacheFile is the cache file under dir of harness's reader.
func CacheFile(dir, harness string) string { return filepath.Join(dir, "catalog-"+harness+".gob") }

// legacyCacheFiles are the JSON caches of cache version 1.
func legacyCacheFiles(dir string) []string {
	return []string{filepath.Join(dir, "catalog-claude-code.json"), filepath.Join(dir, "catalog-codex.json")}
}

// ClearCache removes the catalog's cache files under dir and reports how
// many existed.
func ClearCache(dir string) (int, error) {
	n := 0
	for _, p := range legacyCacheFiles(dir) {
		_ = os.Remove(p) // superseded; not counted
	}
	for _, p := range append(CacheFiles(dir), ArchiveCacheFiles(dir)...) {
		err := os.Remove(p)
		if err == nil {
			n++
		} else if !scan.IsNotExist(err) {
			return n, err
		}
	}
	return n, nil
}

package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// Benchmark sizes: TETHER_BENCH_SESSIONS transcripts of about
// TETHER_BENCH_KB KiB each (default 500 × 256 KiB). The scale is
// TETHER_BENCH_SESSIONS=10000 TETHER_BENCH_KB=300 (about 3 GB):
//
//	TETHER_BENCH_SESSIONS=10000 TETHER_BENCH_KB=300 go test -run '^$' -bench List -benchtime 3x ./catalog
func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// genHistory writes n Claude Code transcripts of about kb KiB each
// (one in ten a Codex-style 2.0.x subagent file, which List must skip).
func genHistory(b *testing.B, n, kb int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		p := filepath.Join(dir, "projects", fmt.Sprintf("-home-example-src-project-%d", i%50), fmt.Sprintf("%08d-0000-0000-0000-000000000000.jsonl", i))
		writeFile(b, p, genClaudeTranscript(i, kb<<10))
	}
	return dir
}

func BenchmarkList(b *testing.B) {
	n, kb := benchEnv("TETHER_BENCH_SESSIONS", 500), benchEnv("TETHER_BENCH_KB", 256)
	dir := genHistory(b, n, kb)
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(fmt.Sprintf("%s/sessions=%d/kb=%d", name, n, kb), func(b *testing.B) {
			cachePath := filepath.Join(b.TempDir(), "cache.json")
			if warm {
				r := &ClaudeReader{Dir: dir, Procs: fakeProcs{}, Cache: OpenCache(cachePath)}
				if _, _, err := r.List(context.Background(), ListOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			var o countingOpener
			var peak uint64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var cache *Cache
				if warm {
					cache = OpenCache(cachePath)
				}
				r := &ClaudeReader{Dir: dir, Procs: fakeProcs{}, Open: o.open, Cache: cache}
				ss, _, err := r.List(context.Background(), ListOptions{})
				if err != nil || len(ss) != n {
					b.Fatalf("%d sessions, %v", len(ss), err)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			b.StopTimer()
			b.ReportMetric(float64(o.n.Load())/float64(b.N)/float64(n), "bytes-read/session")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/internal/testkit/corpus"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// Benchmark size: TETHER_BENCH_SESSIONS Claude Code transcripts (default
// 500) from the benchmark corpus (internal/testkit/corpus: long-tailed sizes,
// real record shapes), each at most TETHER_BENCH_MAX_MB MiB (default 8).
// The scale:
//
//	TETHER_BENCH_SESSIONS=10000 go test -run '^$' -bench List -benchtime 3x ./catalog
func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// genHistory writes n Claude Code sessions and returns the config dir.
func genHistory(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	_, err := corpus.Generate(corpus.Options{Dir: dir, Sessions: n, Projects: max(1, n/50), Seed: 1,
		MaxSize: int64(benchEnv("TETHER_BENCH_MAX_MB", 8)) << 20, CodexShare: -1})
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, ".claude")
}

func BenchmarkList(b *testing.B) {
	n := benchEnv("TETHER_BENCH_SESSIONS", 500)
	dir := genHistory(b, n)
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(fmt.Sprintf("%s/sessions=%d", name, n), func(b *testing.B) {
			cachePath := filepath.Join(b.TempDir(), "cache.json")
			if warm {
				r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Cache: claudesessions.OpenCache(cachePath)}
				if _, _, err := r.List(context.Background(), ListOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			var o sessiontest.CountingOpener
			var peak uint64
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var cache *claudesessions.Cache
				if warm {
					cache = claudesessions.OpenCache(cachePath)
				}
				r := &claudesessions.Reader{Dir: dir, Procs: sessiontest.Procs{}, Open: o.Open, Cache: cache}
				ss, _, err := r.List(context.Background(), ListOptions{})
				if err != nil || len(ss) != n {
					b.Fatalf("%d sessions, %v", len(ss), err)
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			b.StopTimer()
			b.ReportMetric(float64(o.N.Load())/float64(b.N)/float64(n), "bytes-read/session")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

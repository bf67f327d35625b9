package searchindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/corpus"
)

// Benchmarks over the benchmark corpus (internal/testkit/corpus), both agents:
// TETHER_BENCH_SESSIONS sessions (default 500), each at most
// TETHER_BENCH_MAX_MB MiB (default 8). They time the index alone, without
// the catalog listing or process start that `tether sessions search`
// adds. The scale:
//
//	TETHER_BENCH_SESSIONS=10000 go test -run '^$' -bench . -benchtime 10x ./searchindex
func benchEnv(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchSessions generates a history and lists it.
func benchSessions(b *testing.B, n int) []catalog.Session {
	b.Helper()
	dir := b.TempDir()
	_, err := corpus.Generate(corpus.Options{Dir: dir, Sessions: n, Projects: max(1, n/50), Seed: 1,
		MaxSize: int64(benchEnv("TETHER_BENCH_MAX_MB", 8)) << 20})
	if err != nil {
		b.Fatal(err)
	}
	c := &catalog.Catalog{Readers: []catalog.Reader{
		&claudesessions.Reader{Dir: filepath.Join(dir, ".claude")},
		&codexsessions.Reader{Dir: filepath.Join(dir, ".codex")},
	}}
	ss, _, err := c.List(context.Background(), catalog.ListOptions{All: true})
	if err != nil {
		b.Fatal(err)
	}
	return ss
}

func BenchmarkIndex(b *testing.B) {
	n := benchEnv("TETHER_BENCH_SESSIONS", 500)
	ss := benchSessions(b, n)
	path := filepath.Join(b.TempDir(), "search.db")
	b.Run(fmt.Sprintf("build/sessions=%d", n), func(b *testing.B) {
		for range b.N {
			os.Remove(path)
			os.Remove(path + "-journal")
			ix, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ix.Update(context.Background(), ss, UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
			ix.Close()
		}
	})
	ix, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Update(context.Background(), ss, UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("update-unchanged/sessions=%d", n), func(b *testing.B) {
		for range b.N {
			if st, err := ix.Update(context.Background(), ss, UpdateOptions{}); err != nil || st.Unchanged != len(ss) {
				b.Fatalf("%+v %v", st, err)
			}
		}
	})
	for _, q := range []struct {
		name, text string
		all        bool
	}{{"common-word", "parser", false}, {"phrase-prefix-all-text", `"failing test" pars*`, true}, {"no-match", "zzyzx", false}} {
		terms, err := ParseQuery(q.text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("query-%s/sessions=%d", q.name, n), func(b *testing.B) {
			for range b.N {
				if _, err := ix.Search(context.Background(), Query{Terms: terms, AllText: q.all, Limit: 20}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

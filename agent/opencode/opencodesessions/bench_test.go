package opencodesessions_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/opencode/opencodesessions"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
)

// BenchmarkList lists a database of 1,000 copies of the real sample
// session: cold (no cache: the query) and warm (the cache's rows, the
// database unchanged).
func BenchmarkList(b *testing.B) {
	data := b.TempDir()
	sessiontest.OpenCodeManyDB(b, data, 1000, 50)
	cache := filepath.Join(b.TempDir(), "catalog-opencode.gob")
	for _, bc := range []struct {
		name, cache string
	}{{"cold", ""}, {"warm", cache}} {
		b.Run(bc.name, func(b *testing.B) {
			list := func() int {
				r := opencodesessions.New(data, "").Sessions(agent.ReaderConfig{CachePath: bc.cache})
				ss, diags, err := r.List(context.Background(), agent.ListOptions{})
				if err != nil || len(diags) != 0 {
					b.Fatal(err, diags)
				}
				return len(ss)
			}
			if n := list(); n != 1002 {
				b.Fatalf("%d sessions", n)
			}
			b.ResetTimer()
			for range b.N {
				list()
			}
		})
	}
}

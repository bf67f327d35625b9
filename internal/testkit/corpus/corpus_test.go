package corpus

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/catalog"
)

// hashTree hashes every file's path and content under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".sqlite") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel))
		if d.Type()&fs.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			h.Write([]byte(l))
			return nil
		}
		b, err := os.ReadFile(p)
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(h.Sum(nil))
}

func TestGenerateDeterministicAndReadable(t *testing.T) {
	dirA := t.TempDir()
	o := Options{Dir: dirA, Sessions: 40, Projects: 9, Seed: 7, MaxSize: 256 << 10}
	st, err := Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	if st.Claude+st.Codex != 40 || st.Codex == 0 || st.Largest > 256<<10+64<<10 {
		t.Fatalf("stats %+v", st)
	}
	// Every line of every transcript is a JSON object.
	_ = filepath.WalkDir(dirA, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s:%d: %v", p, n, err)
			}
		}
		return sc.Err()
	})
	// The catalog reads every session without a diagnostic.
	ctx := context.Background()
	cl := &claudesessions.Reader{Dir: filepath.Join(dirA, ".claude")}
	ss, diags, err := cl.List(ctx, catalog.ListOptions{})
	if err != nil || len(diags) > 0 || len(ss) != st.Claude {
		t.Fatalf("claude: %d sessions (want %d), %v, %v", len(ss), st.Claude, diags, err)
	}
	cx := &codexsessions.Reader{Dir: filepath.Join(dirA, ".codex")}
	cs, diags, err := cx.List(ctx, catalog.ListOptions{All: true})
	if err != nil || len(diags) > 0 || len(cs) != st.Codex {
		t.Fatalf("codex: %d sessions (want %d), %v, %v", len(cs), st.Codex, diags, err)
	}
	// A session whose last record is a compaction has no usage yet.
	noUsage := 0
	for _, s := range ss {
		if s.Context == nil {
			noUsage++
		} else if s.Context.Percent > 100 {
			t.Errorf("%s: context %+v", s.ID, s.Context)
		}
		if s.Title == "" {
			t.Errorf("%s: no title", s.ID)
		}
	}
	if noUsage > len(ss)/3 {
		t.Errorf("%d of %d sessions without usage", noUsage, len(ss))
	}
}

func TestGenerateSameSeedSameBytes(t *testing.T) {
	dir := t.TempDir()
	var sums []string
	for range 2 {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(Options{Dir: dir, Sessions: 15, Projects: 4, Seed: 3, MaxSize: 128 << 10}); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, hashTree(t, dir))
	}
	if sums[0] != sums[1] {
		t.Error("same options, different corpus")
	}
}

package usage

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent"
)

// randomFiles are transcripts whose records repeat each other within and
// across files, by request and by message id, sidechains and quirks
// among them, copies as full as each other with other prices among them.
func randomFiles(rng *rand.Rand) []agent.FileUsage {
	models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", ""}
	var files []agent.FileUsage
	for f := range 1 + rng.IntN(4) {
		file := agent.FileUsage{Harness: agent.Claude, Path: string(rune('a' + f)), Session: string(rune('a' + f)), Project: "p"}
		for range rng.IntN(12) {
			msg := uint64(1 + rng.IntN(4))
			req := uint64(rng.IntN(2))
			r := agent.UsageRecord{Time: int64(rng.IntN(4)) * 3_600_000, Model: models[rng.IntN(len(models))],
				Key: msg*10 + req + 1, AltKey: msg*1000 + 7, Sidechain: rng.IntN(6) == 0, Quirk: rng.IntN(8) == 0,
				Input: int64(rng.IntN(3)) * 100, Output: int64(rng.IntN(3)) * 10, CacheRead: int64(rng.IntN(2)) * 1000, Fast: rng.IntN(9) == 0}
			if rng.IntN(10) == 0 {
				r.Key = 0
			}
			file.Records = append(file.Records, r)
		}
		files = append(files, file)
	}
	return files
}

func foldAll(t *testing.T, files []agent.FileUsage) []agent.FileUsage {
	out := make([]agent.FileUsage, len(files))
	for i, f := range files {
		recs := append([]agent.UsageRecord{}, f.Records...)
		folded, n, ok := agent.FoldCopies(recs)
		if !ok {
			t.Fatalf("a first fold refused: %+v", f.Records)
		}
		f.Records, f.Folded = folded, n
		out[i] = f
	}
	return out
}

func sameCounts(t *testing.T, what string, got, want *Counted) {
	t.Helper()
	for _, corrected := range []bool{false} {
		_ = corrected
		for _, k := range []Kind{Daily, Sessions, Models} {
			g, w := got.Report(Options{Kind: k, Location: time.UTC}), want.Report(Options{Kind: k, Location: time.UTC})
			if g.Totals.Input != w.Totals.Input || g.Totals.Output != w.Totals.Output || g.Totals.CacheRead != w.Totals.CacheRead ||
				math.Abs(g.Totals.CostUSD-w.Totals.CostUSD) > 1e-9 || g.Duplicates != w.Duplicates || g.Skipped != w.Skipped || len(g.Rows) != len(w.Rows) {
				t.Fatalf("%s %s: folded %+v (dup %d skip %d), whole %+v (dup %d skip %d)", what, k, g.Totals, g.Duplicates, g.Skipped, w.Totals, w.Duplicates, w.Skipped)
			}
			for i := range g.Rows {
				if g.Rows[i].Key != w.Rows[i].Key || g.Rows[i].Total != w.Rows[i].Total || g.Rows[i].LastActivity != w.Rows[i].LastActivity {
					t.Fatalf("%s %s row %d: folded %+v, whole %+v", what, k, i, g.Rows[i], w.Rows[i])
				}
			}
		}
	}
}

// Folding each file's copies changes no report: the same tokens, costs,
// rows, duplicates and skipped records as counting every copy, by the
// default and the corrected rules.
func TestFoldCopiesCountsTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	folds := 0
	for range 20000 {
		files := randomFiles(rng)
		folded := foldAll(t, files)
		for i := range folded {
			folds += folded[i].Folded
		}
		sameCounts(t, "default", Count(folded, nil, false), Count(files, nil, false))
		sameCounts(t, "corrected", Count(folded, nil, true), Count(files, nil, true))
	}
	if folds == 0 {
		t.Fatal("nothing was folded: the test tests nothing")
	}
}

// A file counted in pieces, its kept records folded each time, folds as
// the whole file does, or says to count it again from its start.
func TestFoldCopiesInPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	again := 0
	for range 20000 {
		files := randomFiles(rng)
		f := files[0]
		cut := rng.IntN(len(f.Records) + 1)
		first, n1, _ := agent.FoldCopies(append([]agent.UsageRecord{}, f.Records[:cut]...))
		combined, n2, ok := agent.FoldCopies(append(first, f.Records[cut:]...))
		if !ok {
			again++
			continue
		}
		pieces := files
		pieces[0].Records, pieces[0].Folded = combined, n1+n2
		sameCounts(t, "pieces", Count(pieces, nil, false), Count(randomFilesCopy(files, f), nil, false))
	}
	t.Logf("%d of 20000 counted again from the start", again)
}

func randomFilesCopy(files []agent.FileUsage, first agent.FileUsage) []agent.FileUsage {
	out := append([]agent.FileUsage{}, files...)
	first.Folded = 0
	out[0] = first
	return out
}

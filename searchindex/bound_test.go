package searchindex

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/agent/claude/claudesessions"
	"github.com/tether-dev/tether/agent/codex/codexsessions"
	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/corpus"
)

// queryHangBound is far beyond what a bounded query takes here; past it
// the query is taken to run away (no timing is asserted).
const queryHangBound = 30 * time.Second

// corpusIx is an index of 60 generated sessions (both agents).
func corpusIx(t *testing.T) *Index {
	t.Helper()
	dir := t.TempDir()
	if _, err := corpus.Generate(corpus.Options{Dir: dir, Sessions: 60, Projects: 2, Seed: 1, MaxSize: 8 << 20}); err != nil {
		t.Fatal(err)
	}
	c := &catalog.Catalog{Readers: []catalog.Reader{&claudesessions.Reader{Dir: filepath.Join(dir, ".claude")},
		&codexsessions.Reader{Dir: filepath.Join(dir, ".codex")}}}
	ss, _, err := c.List(ctx, catalog.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(filepath.Join(dir, "search.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Update(ctx, ss, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ix
}

// searchBounded runs the search of q, failing the test if it has not
// returned within queryHangBound.
func searchBounded(t *testing.T, c context.Context, ix *Index, q string, limit int) ([]Hit, error) {
	t.Helper()
	terms, err := ParseQuery(q)
	if err != nil {
		return nil, err
	}
	type res struct {
		hits []Hit
		err  error
	}
	done := make(chan res, 1)
	go func() {
		hits, err := ix.Search(c, Query{Terms: terms, AllText: true, Limit: limit})
		done <- res{hits, err}
	}()
	select {
	case r := <-done:
		return r.hits, r.err
	case <-time.After(queryHangBound):
		t.Fatalf("%.40q… did not return within %s", q, queryHangBound)
		return nil, nil
	}
}

func keysOf(hits []Hit) []string {
	var keys []string
	for _, h := range hits {
		keys = append(keys, h.Key)
	}
	return keys
}

// 112 copies of x* are one term: the search finishes, with the hits of
// x* alone (it took 56 s over 60 sessions, its cost growing with the
// square of the copies).
func TestRepeatedPrefixTerms(t *testing.T) {
	ix := corpusIx(t)
	one, err := searchBounded(t, ctx, ix, "x*", 20)
	if err != nil || len(one) == 0 {
		t.Fatalf("x*: %d hits, %v", len(one), err)
	}
	many, err := searchBounded(t, ctx, ix, strings.Repeat("x* ", 112), 20)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keysOf(many), keysOf(one)) {
		t.Errorf("112 × x*: %v, want x*'s %v", keysOf(many), keysOf(one))
	}
}

// A query cancelled while it runs (what SIGINT or SIGTERM does to
// `tether sessions search`) returns within the bound.
func TestCancelledQueryStops(t *testing.T) {
	ix := corpusIx(t)
	c, cancel := context.WithCancel(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	defer cancel()
	t0 := time.Now()
	_, err := searchBounded(t, c, ix, strings.Repeat("x* ", 112), 0)
	t.Logf("took %s: %v", time.Since(t0), err)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestQueryTermsBounded(t *testing.T) {
	if terms, err := ParseQuery(`x* X* x* "Two  words" "two words" two`); err != nil || len(terms) != 3 {
		t.Errorf("repeats: %v %v", terms, err)
	}
	var words, prefixes []string
	for i := range MaxTerms + 1 {
		words = append(words, "w"+strings.Repeat("a", i+1))
		prefixes = append(prefixes, "p"+strings.Repeat("b", i+1)+"*")
	}
	for _, q := range []string{strings.Join(words, " "), strings.Join(prefixes[:MaxPrefixTerms+1], " ")} {
		_, err := ParseQuery(q)
		if !errors.Is(err, ErrTooManyTerms) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.30s…: %v", q, err)
		}
	}
	if _, err := ParseQuery(strings.Join(words[:MaxTerms], " ")); err != nil {
		t.Errorf("%d terms: %v", MaxTerms, err)
	}
	// The index bounds the terms it is given, parsed or not.
	ix := corpusIx(t)
	var terms []Term
	for i := range MaxPrefixTerms + 1 {
		terms = append(terms, Term{Text: string(rune('a' + i)), Prefix: true})
	}
	if _, err := ix.Rank(ctx, terms, true); !errors.Is(err, ErrTooManyTerms) {
		t.Errorf("rank of %d prefixes: %v", len(terms), err)
	}
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/testkit/corpus"
)

// searchHangBound is far beyond what these searches take when bounded;
// past it a search is taken to run away (no timing is asserted).
const searchHangBound = 30 * time.Second

// runBounded runs tether with args under ctx, failing the test if it has
// not returned within searchHangBound.
func (ta *testApp) runBounded(t *testing.T, ctx context.Context, args ...string) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- ta.Run(ctx, append([]string{"tether"}, args...)) }()
	select {
	case code := <-done:
		return code
	case <-time.After(searchHangBound):
		t.Fatalf("tether %.60s… did not return within %s", strings.Join(args, " "), searchHangBound)
		return -1
	}
}

// withCorpus generates 60 sessions of both agents in ta's HOME and
// indexes them.
func withCorpus(t *testing.T, ta *testApp) {
	t.Helper()
	if _, err := corpus.Generate(corpus.Options{Dir: ta.home, Sessions: 60, Projects: 2, Seed: 1, MaxSize: 8 << 20}); err != nil {
		t.Fatal(err)
	}
	if code := ta.run("sessions", "index"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, ta.err)
	}
}

// 112 copies of x* (56 s over 60 sessions, its cost growing with the
// square of the copies) search as x* alone.
func TestSearchRepeatedPrefixTerms(t *testing.T) {
	ta := newTestApp(t)
	withCorpus(t, ta)
	if code := ta.runBounded(t, context.Background(), "sessions", "search", "--all-text", "--json", "x*"); code != 0 {
		t.Fatalf("x*: exit %d: %s", code, ta.err)
	}
	one := ta.out.String()
	ta.out.Reset()
	if code := ta.runBounded(t, context.Background(), append([]string{"sessions", "search", "--all-text", "--json"}, strings.Fields(strings.Repeat("x* ", 112))...)...); code != 0 {
		t.Fatalf("112 × x*: exit %d: %s", code, ta.err)
	}
	if got := ta.out.String(); strings.Count(got, `"key"`) != strings.Count(one, `"key"`) {
		t.Errorf("112 × x* found other sessions than x*")
	}
	// Past the bound: refused, with why, before any work.
	ta.err.Reset()
	var many []string
	for i := range 40 {
		many = append(many, "w"+strings.Repeat("a", i+1))
	}
	if code := ta.run(append([]string{"sessions", "search"}, many...)...); code != 2 || !strings.Contains(ta.err.String(), "at most 32") {
		t.Errorf("40 terms: exit %d: %s", code, ta.err)
	}
}

// SIGINT or SIGTERM (the command's context cancelled) ends a long
// search at once, with no scan of the transcripts in the index's place
// (twelve words found in every session's tool output, every match with
// its snippets).
func TestSearchInterrupted(t *testing.T) {
	ta := newTestApp(t)
	withCorpus(t, ta)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	defer cancel()
	code := ta.runBounded(t, ctx, append([]string{"sessions", "search", "--all-text", "--limit", "0"},
		strings.Fields("func return if err nil value x get k note for i range")...)...)
	if ctx.Err() == nil {
		t.Log("the search ended before the interrupt: nothing to check")
		return
	}
	if code == 0 || strings.Contains(ta.err.String(), "scanning transcripts instead") || !strings.Contains(ta.err.String(), "interrupted") {
		t.Errorf("interrupted search: exit %d: %s", code, ta.err)
	}
}

package searchindex

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/catalog"
)

// take waits while the bytes held would pass the limit, except when
// nothing is held.
func TestBudget(t *testing.T) {
	b := newBudget(10)
	b.take(25) // alone: passes
	var mu sync.Mutex
	taken := false
	go func() {
		b.take(1)
		mu.Lock()
		taken = true
		mu.Unlock()
	}()
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	early := taken
	mu.Unlock()
	if early {
		t.Fatal("take passed the limit while bytes were held")
	}
	b.give(25)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		ok := taken
		mu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("take still waiting after give")
		}
		time.Sleep(time.Millisecond)
	}
}

// With readers held back to one result at a time, a build still indexes
// every session.
func TestBuildUnderASmallBudget(t *testing.T) {
	defer func(n int) { pendingMax = n }(pendingMax)
	pendingMax = 1
	f := newFixture(t)
	for i := range 30 {
		f.session(catalog.ClaudeCode, fmt.Sprintf("c%02d", i), "t", strings.Repeat(userLine(fmt.Sprintf("word%d common", i)), i+1), time.Duration(i)*time.Minute)
	}
	if st := f.update(); st.Added != 30 {
		t.Fatalf("%+v", st)
	}
	if got := f.find("common", false); len(got) != 30 {
		t.Errorf("common: %d sessions, want 30", len(got))
	}
	if got := f.find("word7", false); len(got) != 1 || got[0] != "claude-code:c07" {
		t.Errorf("word7: %v", got)
	}
}

// An update cancelled while its transcripts are read fails, reads no
// more of them and leaves the index as it was; the next one does it all.
func TestCancelledUpdateStopsReading(t *testing.T) {
	f := newFixture(t)
	for i := range 40 {
		f.session(catalog.ClaudeCode, fmt.Sprintf("c%02d", i), "t", userLine(fmt.Sprintf("word%d", i)), time.Duration(i)*time.Minute)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	opens := 0
	open := func(name string) (catalog.File, error) {
		mu.Lock()
		opens++
		mu.Unlock()
		cancel()
		return os.Open(name)
	}
	if _, err := f.ix.Update(cctx, f.ss, UpdateOptions{Open: open}); err == nil {
		t.Fatal("a cancelled update succeeded")
	}
	if limit := 2 * runtime.GOMAXPROCS(0); opens > limit {
		t.Errorf("%d transcripts opened after the cancel, want at most %d", opens, limit)
	}
	if st := f.update(); st.Added != 40 {
		t.Fatalf("after the cancelled update: %+v", st)
	}
	if got := f.find("word7", false); len(got) != 1 {
		t.Errorf("word7: %v", got)
	}
}

package picker

import (
	"runtime"
	"testing"
)

// A panic in one of filter's parallel goroutines (here: candidates the
// haystacks do not have) is raised on the caller's goroutine, where
// Bubble Tea recovers and restores the terminal (issue 23, item 11),
// instead of ending the process from a goroutine nobody recovers.
func TestFilterPanicReachesCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("filter splits only over several CPUs")
	}
	cand := make([]int, parallelMin)
	for i := range cand {
		cand[i] = i
	}
	defer func() {
		if recover() == nil {
			t.Error("filter over rows it has no hay for did not panic")
		}
	}()
	filter(newHaystacks(nil, "/home/example"), cand, "x")
}

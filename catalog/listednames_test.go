package catalog

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// listedNames holds exactly the (directory, name) pairs of the sessions
// whose state is not unknown, whatever their order (a Codex listing
// interleaves day directories; a directory can come back later).
func TestListedNamesMatchesSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var live []Session
	want := map[[2]string]bool{}
	for i := range 3000 {
		dir := fmt.Sprintf("/home/example/.codex/sessions/2026/11/%02d", rng.IntN(9))
		if i < 1500 {
			dir = fmt.Sprintf("/home/example/.claude/projects/p%d", i/100) // grouped, in order
		}
		name := fmt.Sprintf("%04d.jsonl", rng.IntN(400))
		s := Session{Source: filepath.Join(dir, name), State: StateResumable}
		if rng.IntN(5) == 0 {
			s.State = StateUnknown
		} else {
			want[[2]string{dir, name}] = true
		}
		live = append(live, s)
	}
	got := listedNames(live)
	n := 0
	for dir, names := range got {
		slices.Sort(names)
		for _, name := range slices.Compact(names) {
			if !want[[2]string{dir, name}] {
				t.Errorf("%s/%s listed", dir, name)
			}
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d pairs, want %d", n, len(want))
	}
}

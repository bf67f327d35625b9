package picker

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tether-dev/tether/catalog"
)

// synthetic makes n sessions with realistic titles, prompts and paths.
func synthetic(n int) []catalog.Session {
	words := strings.Fields("fix the flaky login test refactor parser lexer write release notes bump dependency " +
		"explain stack trace review diff bugs port script to go cache hook fail open build slow docs api config loader")
	rng := rand.New(rand.NewPCG(1, 2))
	phrase := func(k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	ss := make([]catalog.Session, n)
	for i := range ss {
		h := catalog.ClaudeCode
		if i%5 == 0 {
			h = catalog.Codex
		}
		s := sess(h, fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), i),
			fmt.Sprintf("/home/example/src/project-%d/%s", i%200, words[i%len(words)]), phrase(6), time.Duration(i)*time.Minute)
		s.FirstPrompt = phrase(30)
		s.RecentPrompts = []string{phrase(20), phrase(20)}
		s.GitBranch = "feature/" + words[rng.IntN(len(words))]
		ss[i] = s
	}
	return ss
}

// BenchmarkKeystroke is one keystroke's re-filter over 10,000 sessions:
// typing "refactor parser" one character at a time, then deleting it,
// per op one key (the budget: 16 ms).
func BenchmarkKeystroke(b *testing.B) {
	m := New(Options{Sessions: synthetic(10000), Agents: testAgents, Now: func() time.Time { return now }})
	m = send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
	query := "refactor parser"
	keys := make([]tea.KeyPressMsg, 0, 2*len(query))
	for _, r := range query {
		keys = append(keys, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	for range query {
		keys = append(keys, tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		nm, _ := m.Update(keys[i%len(keys)])
		m = nm.(Model)
		_ = m.View()
	}
	reportCPU(b, cpu)
}

// cpuTime is this process's user+system CPU time. Reported next to wall
// time: on a loaded machine the wall time mostly measures the wait for a
// CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkFirstPaint is what `tether pick` does before its first frame
// with 10,000 sessions: read the snapshot, build the model, draw it.
func BenchmarkFirstPaint(b *testing.B) {
	path := filepath.Join(b.TempDir(), "snap.gob")
	if err := SaveSnapshot(path, synthetic(10000)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for i := 0; i < b.N; i++ {
		ss, short := LoadSnapshot(path)
		if len(ss) != 10000 {
			b.Fatalf("snapshot has %d sessions", len(ss))
		}
		m := New(Options{Sessions: ss, Short: short, Agents: testAgents, Root: "/home/example/src/project-7/parser", Now: time.Now})
		m = send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View()
	}
}

func TestSnapshotRoundTripIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "snap.gob")
	ss := synthetic(3)
	ss[0].Evidence = &catalog.Evidence{FilesRead: []string{"/x"}}
	if err := SaveSnapshot(path, ss); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v, %v", fi.Mode(), err)
	}
	got, _ := LoadSnapshot(path)
	if len(got) != 3 || got[1].Title != ss[1].Title || got[0].Evidence != nil {
		t.Errorf("round trip: %+v", got)
	}
	os.WriteFile(path, []byte("garbage"), 0o600)
	if got, _ := LoadSnapshot(path); got != nil {
		t.Error("a corrupt snapshot was not ignored")
	}
}

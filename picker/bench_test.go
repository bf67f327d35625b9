package picker

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/testkit/sessiontest"
	"github.com/tether-dev/tether/picker/snapshot"
)

// synthetic makes n sessions with realistic titles, prompts and paths.
func synthetic(n int) []catalog.Session { return sessiontest.Synthetic(n, now) }

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
	if err := snapshot.Save(path, synthetic(10000)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for i := 0; i < b.N; i++ {
		ss, short := snapshot.Load(path)
		if len(ss) != 10000 {
			b.Fatalf("snapshot has %d sessions", len(ss))
		}
		m := New(Options{Sessions: ss, Short: short, Agents: testAgents, Root: "/home/example/src/project-7/parser", Now: time.Now})
		m = send(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View()
	}
}

package trim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// generate writes a transcript of about size bytes, turn by turn (never
// holding it in memory): prompts, thinking, text, Reads and Bash calls with
// results of 2–64 KiB, a file-history-snapshot per turn, and a 4 MiB result
// now and then, since real records can be many MB.
func generate(tb testing.TB, path string, size int64) int64 {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	b := newTB("2.1.332")
	var n int64
	for i := 0; n < size; i++ {
		result := strings.Repeat(fmt.Sprintf("output line %d\n", i), 150+(i%30)*300)
		if i%200 == 7 {
			result = strings.Repeat("x", 4<<20)
		}
		b.turn(fmt.Sprintf("prompt %d", i), result, fmt.Sprintf("Read:/home/example/src/proj/f%d.go", i%50), "Bash:make test")
		b.nonChain("file-history-snapshot", map[string]any{"messageId": fmt.Sprint(i), "snapshot": map[string]any{"files": strings.Repeat("s", 2000)}})
		for _, l := range b.lines {
			w.WriteString(l)
			w.WriteByte('\n')
			n += int64(len(l)) + 1
		}
		b.lines = b.lines[:0]
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return n
}

var (
	benchOnce sync.Once
	benchDir  string
	benchFile string
	benchSize int64
)

// benchTranscript generates the ~100 MB transcript once per process.
// TETHER_TRIM_BENCH_MB overrides the size (1024 for the 1 GB run).
func benchTranscript(b *testing.B) (string, int64) {
	benchOnce.Do(func() {
		mb := int64(100)
		if v := os.Getenv("TETHER_TRIM_BENCH_MB"); v != "" {
			fmt.Sscan(v, &mb)
		}
		var err error
		benchDir, err = os.MkdirTemp("", "tether-trim-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFile = filepath.Join(benchDir, "orig.jsonl")
		benchSize = generate(b, benchFile, mb<<20)
	})
	return benchFile, benchSize
}

// peakHeap samples the heap while fn runs and returns the largest
// HeapInuse seen, in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak
}

func benchTrim(b *testing.B, opts Options) {
	orig, size := benchTranscript(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	b.SetBytes(size)
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(path)
		os.Remove(path + ".bak")
		if err := os.Link(orig, path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var err error
		var rep *Report
		p := peakHeap(func() { rep, err = File(path, opts, false) })
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Changed {
			b.Fatal("nothing trimmed")
		}
		peak = max(peak, p)
		// File replaced path by rename, so orig (the link) is untouched.
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(size)/(1<<20), "input-MB")
}

// BenchmarkTrimFit trims the generated transcript to 50% of a 200k window:
// thinking, markers and whole turns. Run with -benchtime=1x; MB/s is the
// throughput, peak-heap-MB the most heap in use at any moment.
func BenchmarkTrimFit(b *testing.B) {
	benchTrim(b, Options{Policy: PolicyFit, FitPercent: 50, Window: DefaultWindow})
}

// BenchmarkTrimKeep trims the same transcript with the keep policy.
func BenchmarkTrimKeep(b *testing.B) {
	benchTrim(b, Options{Policy: PolicyKeep, KeepPaths: []string{"/home/example/src/proj/f1.go"}})
}

// BenchmarkValidate measures the validator alone.
func BenchmarkValidate(b *testing.B) {
	orig, size := benchTranscript(b)
	b.SetBytes(size)
	var peak uint64
	for i := 0; i < b.N; i++ {
		f, err := os.Open(orig)
		if err != nil {
			b.Fatal(err)
		}
		p := peakHeap(func() {
			if err := Validate(f); err != nil {
				b.Fatal(err)
			}
		})
		f.Close()
		peak = max(peak, p)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

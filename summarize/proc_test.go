package summarize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangBound is far beyond what any of these runs takes when it works;
// past it the run is taken to hang (no timing is asserted).
const hangBound = 30 * time.Second

// runBounded runs z on the test evidence, failing the test if it does not
// return within hangBound.
func runBounded(t *testing.T, ctx context.Context, z *Summarizer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := z.Run(ctx, testEvidence()); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangBound):
		t.Fatalf("the provider run did not return within %s", hangBound)
		return nil
	}
}

// alive reports whether the pid written in file is still running.
func alive(t *testing.T, file string) bool {
	t.Helper()
	var b []byte
	for range 100 {
		if b, _ = os.ReadFile(file); len(strings.TrimSpace(string(b))) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("no pid in %s: %q", file, b)
	}
	// The sleeper was reparented: killed, it may stay a zombie until
	// init reaps it, which counts as dead.
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return false
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && zombie(string(st)) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// zombie reports whether a /proc/PID/stat line has state Z (or X).
func zombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// A provider that leaves a child holding its pipes is still stopped by
// the timeout, the child with it.
func TestProviderTimeoutKillsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	z, data := newZ(t, script(t, `cat >/dev/null; (sleep 300) & echo $! > '`+pidFile+`'; sleep 300`))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := runBounded(t, ctx, z)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "provider command") {
		t.Errorf("error %v, want a timeout naming the provider", err)
	}
	if alive(t, pidFile) {
		t.Error("the provider's child outlived the timeout")
	}
	if _, serr := os.Stat(Dir(data)); !errors.Is(serr, os.ErrNotExist) {
		t.Error("something was stored")
	}
}

// A provider that answers and exits, leaving a child holding stdout, is
// not waited for past a bound, and the child does not outlive it.
func TestProviderExitedChildHoldsPipes(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	z, _ := newZ(t, script(t, `cat >/dev/null; echo '`+goodReply+`'; (sleep 300) & echo $! > '`+pidFile+`'`))
	if err := runBounded(t, context.Background(), z); err != nil {
		t.Errorf("run: %v", err)
	}
	if alive(t, pidFile) {
		t.Error("the provider's child outlived it")
	}
}

// 800 MiB of output is an error naming the provider, and is not held in
// memory.
func TestProviderOutputCapped(t *testing.T) {
	z, _ := newZ(t, script(t, `cat >/dev/null; yes | head -c 838860800`))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := runBounded(t, context.Background(), z)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "provider command") || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Errorf("error %v, want the cap naming the provider", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("%d MiB allocated for the output", got>>20)
	}
}

// The claude provider's --help check is bounded the same way.
func TestClaudeHelpTimeout(t *testing.T) {
	bin := script(t, `(sleep 300) & sleep 300`)
	p, _ := New(Options{Provider: ProviderClaude, Bin: bin, Env: os.Environ()})
	z := &Summarizer{Provider: p, DataDir: t.TempDir(), Now: time.Now}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := runBounded(t, ctx, z); !errors.Is(err, ErrRefused) {
		t.Errorf("error %v, want refused (the check timed out)", err)
	}
}

// The same after a failure: the error is the provider's, and its child
// does not outlive it.
func TestProviderFailedChildHoldsPipes(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	z, _ := newZ(t, script(t, `cat >/dev/null; echo "quota exceeded" >&2; (sleep 300) & echo $! > '`+pidFile+`'; exit 3`))
	if err := runBounded(t, context.Background(), z); err == nil || !strings.Contains(err.Error(), "quota exceeded") {
		t.Errorf("run: %v, want the provider's error", err)
	}
	if alive(t, pidFile) {
		t.Error("the provider's child outlived it")
	}
}

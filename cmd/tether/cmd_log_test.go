package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/iostreams"
	"github.com/tether-dev/tether/state"
)

func TestLogCommandFilters(t *testing.T) {
	ta := newTestApp(t)
	l := ta.Log()
	l.Info("spawn", "session_01HXYZabcdef", slog.String("cwd", "/home/example/src/project"))
	l.Warn("resume_failure", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.String("error", "prompt too long"))
	l.Info("context_usage", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.Int("tokens", 1234))

	if code := ta.run("log", "--json", "--session", "cse_01HXYZabcdef"); code != 0 {
		t.Fatal(ta.err)
	}
	if n := strings.Count(ta.out.String(), "\n"); n != 1 || !strings.Contains(ta.out.String(), `"event":"spawn"`) {
		t.Errorf("by session body: %q", ta.out)
	}
	ta.out.Reset()
	if code := ta.run("log", "--session", "d9f7", "--event", "context_usage"); code != 0 {
		t.Fatal(ta.err)
	}
	if !strings.Contains(ta.out.String(), "context_usage") || !strings.Contains(ta.out.String(), "tokens=1234") || strings.Contains(ta.out.String(), "resume_failure") {
		t.Errorf("table: %q", ta.out)
	}
	ta.out.Reset()
	ta.App.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	ta.run("log", "--since", "1h", "--json")
	if ta.out.Len() != 0 {
		t.Errorf("--since 1h two hours later: %q", ta.out)
	}
}

func TestLogFollow(t *testing.T) {
	ta := newTestApp(t)
	ta.Log().Info("first", "s1")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	out := &syncBuffer{}
	go func() {
		done <- runLog(ctx, logOptions{IO: &iostreams.IOStreams{Out: out, ErrOut: out}, Path: state.EventLogPath(ta.Loc.StateDir), JSON: true, Follow: true, Now: time.Now, Poll: 5 * time.Millisecond})
	}()
	waitFor(t, func() bool { return strings.Contains(out.String(), `"first"`) })
	ta.Log().Info("second", "s2")
	waitFor(t, func() bool { return strings.Contains(out.String(), `"second"`) })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `"first"`) != 1 {
		t.Errorf("record delivered twice: %s", out)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestLogFollowTailAndAlignment: --follow starts from the last 10 records
// like tail -f (all of them since --since), and lines printed later line up
// with the first ones.
func TestLogFollowTailAndAlignment(t *testing.T) {
	ta := newTestApp(t)
	for i := range 15 {
		ta.Log().Info(fmt.Sprintf("ev%02d", i), "s1")
	}
	// then writes a record and returns what to wait for in the output.
	follow := func(since time.Duration, then func() string) string {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		out := &syncBuffer{}
		go func() {
			done <- runLog(ctx, logOptions{IO: &iostreams.IOStreams{Out: out, ErrOut: out}, Path: state.EventLogPath(ta.Loc.StateDir), Follow: true, Since: since, Now: time.Now, Poll: 5 * time.Millisecond})
		}()
		waitFor(t, func() bool { return strings.Contains(out.String(), "ev14") })
		if then != nil {
			want := then()
			waitFor(t, func() bool { return strings.Contains(out.String(), want) })
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	aligned := func(out string) {
		t.Helper()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		col := strings.Index(lines[0], "SESSION")
		for _, l := range lines[1:] {
			if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
				t.Errorf("misaligned (SESSION at %d):\n%s", col, out)
				return
			}
		}
	}
	out := follow(0, func() string {
		ta.Log().Warn("context_window_exceeded", "d9f7843f-07d6-4b50-9048-40676f77f965", slog.String("k", "v"))
		return "k=v"
	})
	if strings.Contains(out, "ev04") || !strings.Contains(out, "ev05") || !strings.Contains(out, "context_window_exceeded") {
		t.Errorf("want the last 10 records then the new one:\n%s", out)
	}
	aligned(out)
	out = follow(0, func() string {
		ta.Log().Info("late", "s2")
		return "late"
	})
	if !strings.Contains(out, "late") {
		t.Errorf("followed record missing:\n%s", out)
	}
	aligned(out)
	if out := follow(time.Hour, nil); !strings.Contains(out, "ev00") {
		t.Errorf("--since with --follow: want every record since:\n%s", out)
	}
}

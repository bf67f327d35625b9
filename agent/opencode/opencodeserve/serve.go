// Package opencodeserve asks OpenCode to compact a session, through the
// HTTP API of an `opencode serve` tether starts on a loopback port and
// always stops. It is its own package because it links net/http, which
// tether-hot (linking agent/opencode) must not: only tether's trim uses
// it.
package opencodeserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrUnavailable is a server that could not be started or did not
// answer: the user can still type /compact in OpenCode.
var ErrUnavailable = errors.New("opencode serve is unavailable")

// Timeouts: the Bun binary starts in seconds on a busy machine; a
// compaction is one model call over the whole history.
var (
	StartTimeout     = 60 * time.Second
	SummarizeTimeout = 10 * time.Minute
)

// Request is the compaction asked for: session ID of directory Dir,
// summarised by the model Provider/Model (the session's last).
type Request struct {
	ID, Dir         string
	Provider, Model string
}

// Compact starts `bin serve` in r.Dir on a free loopback port, waits for
// its health check, asks it to summarise the session, and stops it (its
// whole process group) whatever happened. An error wrapping
// ErrUnavailable means the server never answered.
func Compact(ctx context.Context, bin string, r Request) error {
	if r.ID == "" || r.Dir == "" || r.Provider == "" || r.Model == "" {
		return fmt.Errorf("compact: session, directory and model are all needed (got %q %q %q/%q)", r.ID, r.Dir, r.Provider, r.Model)
	}
	s, err := start(ctx, bin, r.Dir)
	if err != nil {
		return err
	}
	defer s.stop()
	body, _ := json.Marshal(map[string]string{"providerID": r.Provider, "modelID": r.Model})
	u := s.base + "/session/" + url.PathEscape(r.ID) + "/summarize?directory=" + url.QueryEscape(r.Dir)
	ctx, cancel := context.WithTimeout(ctx, SummarizeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("opencode serve: summarize: %w", err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("opencode serve: summarize: HTTP %d: %s", resp.StatusCode, oneLine(out))
	}
	return nil
}

// server is a running `opencode serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan struct{}
	errb *tailBuffer
}

func start(ctx context.Context, bin, dir string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%w: no free loopback port: %v", ErrUnavailable, err)
	}
	cmd := exec.Command(bin, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &server{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port), done: make(chan struct{}), errb: &tailBuffer{max: 4 << 10}}
	cmd.Stdout, cmd.Stderr = s.errb, s.errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.waitHealthy(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitHealthy polls GET /global/health until it answers 200, the server
// exits, or StartTimeout passes.
func (s *server) waitHealthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	client := &http.Client{Timeout: 3 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/global/health", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("%w: it exited: %s", ErrUnavailable, oneLine(s.errb.bytes()))
		case <-ctx.Done():
			return fmt.Errorf("%w: no answer on %s within %s", ErrUnavailable, s.base, StartTimeout)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// stop kills the server's process group (TERM, then KILL) and waits for
// it: no process of it outlives tether.
func (s *server) stop() {
	pg := -s.cmd.Process.Pid
	_ = syscall.Kill(pg, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
	}
	_ = syscall.Kill(pg, syscall.SIGKILL)
	<-s.done
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.b...)
}

// oneLine is the last non-empty line of b, without control characters.
func oneLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	l := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, lines[len(lines)-1])
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	if l == "" {
		return "(no output)"
	}
	return l
}

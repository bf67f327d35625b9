// Package hooks is what runs inside Claude Code and Codex: the hook
// command's payload parsing and event handling, the context-usage reader
// (a bounded tail of the transcript), the per-session state the prompt
// segment reads, the statusLine renderer, and the installer that edits the
// agents' settings files.
//
// The hook runs on every event the agent fires, so everything here is
// bounded: one small state file read and written, at most a few MiB of
// transcript tail, no locks that wait, no network.
package hooks

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"

	"github.com/tidwall/gjson"
)

// Payload is a hook's stdin, with the fields tether uses pulled out. Raw
// keeps the whole object; unknown fields are simply not read.
type Payload struct {
	Event            string
	SessionID        string
	TranscriptPath   string
	Cwd              string
	Model            string
	Source           string // SessionStart: startup|resume|clear|compact|fork
	Reason           string // SessionEnd
	Trigger          string // Pre/PostCompact: manual|auto
	TurnID           string
	AgentID          string
	AgentType        string
	AgentTranscript  string
	Error            string // StopFailure error type; Codex PostModelRequest error
	ErrorDetails     string
	LastAssistant    string // never logged; only parsed for a self-report
	ToolName         string
	NotificationType string
	Status           string // Codex PostModelRequest
	Kind             string // Codex Pre/PostModelRequest
	Raw              []byte
}

// ErrEmpty is returned for an empty payload.
var ErrEmpty = errors.New("empty payload")

// ParsePayload parses a hook payload, or a payload of one of the agents'
// notify programs (read as the Stop hook it stands for). Only a
// non-object is an error: missing fields stay empty.
func ParsePayload(data []byte, agents agent.Registry) (Payload, error) {
	data = jsonl.TrimSpace(data)
	if len(data) == 0 {
		return Payload{}, ErrEmpty
	}
	if data[0] != '{' || !gjson.ValidBytes(data) {
		return Payload{}, errors.New("payload is not a JSON object")
	}
	r := gjson.ParseBytes(data)
	p := Payload{
		Event:            r.Get("hook_event_name").String(),
		SessionID:        r.Get("session_id").String(),
		TranscriptPath:   r.Get("transcript_path").String(),
		Cwd:              r.Get("cwd").String(),
		Source:           r.Get("source").String(),
		Reason:           r.Get("reason").String(),
		Trigger:          r.Get("trigger").String(),
		TurnID:           r.Get("turn_id").String(),
		AgentID:          r.Get("agent_id").String(),
		AgentType:        r.Get("agent_type").String(),
		AgentTranscript:  r.Get("agent_transcript_path").String(),
		ErrorDetails:     r.Get("error_details").String(),
		LastAssistant:    r.Get("last_assistant_message").String(),
		ToolName:         r.Get("tool_name").String(),
		NotificationType: r.Get("notification_type").String(),
		Status:           r.Get("status").String(),
		Kind:             r.Get("kind").String(),
		Raw:              data,
	}
	if e := r.Get("error"); e.Type == gjson.String {
		p.Error = e.Str
	}
	// Claude's statusLine sends model as {id, display_name}; hooks send a
	// string when they send one at all.
	if m := r.Get("model"); m.IsObject() {
		p.Model = m.Get("id").String()
	} else {
		p.Model = m.String()
	}
	if p.Event == "" {
		for _, a := range agents {
			if n, ok := a.NotifyTurn(data); ok {
				p.Event, p.SessionID, p.TurnID, p.LastAssistant = "Stop", n.SessionID, n.TurnID, n.LastAssistant
				break
			}
		}
	}
	return p, nil
}

// DetectAgent is the agent of agents a payload came from (see
// agent.Registry.MatchHook), getenv being the hook's environment.
func DetectAgent(agents agent.Registry, p Payload, getenv func(string) string) agent.Agent {
	return agents.MatchHook(agent.HookInput{Raw: p.Raw, Transcript: p.TranscriptPath, TurnID: p.TurnID, Getenv: getenv})
}

// ReadLimits bound how long and how much ReadPayload reads.
type ReadLimits struct {
	// Total is the longest ReadPayload waits for a complete payload.
	Total time.Duration
	// Idle is how long it waits for more bytes once some arrived.
	Idle time.Duration
	// Max is the most bytes returned as read; a larger payload is
	// returned as an object of its members under MaxPayloadField.
	Max int
}

// DefaultReadLimits suit a hook: Claude writes the payload at once, but may
// leave stdin open (SessionEnd), so a complete JSON object ends the read
// without waiting for EOF.
var DefaultReadLimits = ReadLimits{Total: time.Second, Idle: 200 * time.Millisecond, Max: 8 << 20}

// ReadPayload reads a payload from r. It returns as soon as the bytes read
// close the top-level JSON object, at EOF, after lim.Idle without new
// bytes once some arrived, or after lim.Total. It never blocks past
// lim.Total: a read still pending then is abandoned (the process exits
// soon after). A payload of any size is read: members over
// MaxPayloadField are streamed past, not kept (see payloadScanner).
//
// A file (the hook's stdin) is read on the calling goroutine, waiting in
// poll(2) with the deadline: a reader goroutine would cost every hook a
// thread and its stack growth. Measured with whole processes, stdin
// through readPayloadStream instead cost a statusLine render 0.1 ms of
// CPU and a PostToolUse with a 20 MiB payload 20 ms (43 ms wall instead
// of 12.5). Other readers (tests' pipes) are read by a goroutine.
func ReadPayload(r io.Reader, lim ReadLimits) ([]byte, error) {
	if f, ok := r.(*os.File); ok {
		return readPayloadFD(int(f.Fd()), lim)
	}
	return readPayloadStream(r, lim)
}

// readPayloadStream is ReadPayload for other readers.
func readPayloadStream(r io.Reader, lim ReadLimits) ([]byte, error) {
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 4)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			ch <- chunk{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	sc := newPayloadScanner(lim.Max)
	total := time.NewTimer(lim.Total)
	defer total.Stop()
	var idle <-chan time.Time
	for {
		select {
		case c := <-ch:
			sc.feed(c.b)
			if c.err != nil {
				if errors.Is(c.err, io.EOF) {
					return sc.payload(), nil
				}
				return sc.payload(), c.err
			}
			if len(c.b) > 0 {
				if sc.done {
					return sc.payload(), nil
				}
				idle = time.After(lim.Idle)
			}
		case <-idle:
			return sc.payload(), nil
		case <-total.C:
			return sc.payload(), errReadTimeout
		}
	}
}

var errReadTimeout = errors.New("timed out reading the payload")

// readPayloadFD is ReadPayload for a file descriptor: poll(2) for the
// deadlines, read(2) into a buffer that starts small (a payload is a few
// hundred bytes) and grows for the large ones.
func readPayloadFD(fd int, lim ReadLimits) ([]byte, error) {
	sc := newPayloadScanner(lim.Max)
	buf := make([]byte, 4<<10)
	deadline := time.Now().Add(lim.Total)
	var idleUntil time.Time
	for {
		until, expired := deadline, errReadTimeout
		if !idleUntil.IsZero() && idleUntil.Before(deadline) {
			until, expired = idleUntil, nil
		}
		wait := time.Until(until)
		if wait <= 0 {
			return sc.payload(), expired
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		// Round up: a 0 ms poll would spin until the deadline.
		ready, err := unix.Poll(fds, int((wait+time.Millisecond-1)/time.Millisecond))
		if err != nil && err != unix.EINTR {
			return sc.payload(), err
		}
		if ready <= 0 {
			continue
		}
		n, err := unix.Read(fd, buf)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return sc.payload(), err
		case n == 0:
			return sc.payload(), nil // EOF
		}
		sc.feed(buf[:n])
		if sc.done {
			return sc.payload(), nil
		}
		idleUntil = time.Now().Add(lim.Idle)
		if n == len(buf) && len(buf) < 256<<10 {
			buf = make([]byte, 4*len(buf))
		}
	}
}

func gjsonInt(raw []byte, path string) int64  { return gjson.GetBytes(raw, path).Int() }
func gjsonStr(raw []byte, path string) string { return gjson.GetBytes(raw, path).String() }

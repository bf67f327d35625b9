package hooks

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/tidwall/gjson"
)

// File is what the usage readers need of a transcript: random access and
// its size. *os.File satisfies it.
type File interface {
	io.ReaderAt
	io.Closer
	Stat() (os.FileInfo, error)
}

// Opener opens a transcript. Tests inject one to count the bytes read.
type Opener func(path string) (File, error)

// OpenFile is the default Opener. It opens only regular files: a FIFO
// named as transcript_path would block the open until a writer appears
// (and a device could block a read), so the open is non-blocking and the
// opened file is checked with fstat, which also closes the race with a
// path swapped between a stat and the open.
func OpenFile(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	return f, nil
}

// TailLimits bound a tail read: the first read takes Initial bytes from the
// end, each retry doubles it, never past Max.
type TailLimits struct {
	Initial int64
	Max     int64
}

// DefaultTail reads 256 KiB first and at most 4 MiB: a turn's usage is
// near the end unless a huge tool result follows it.
var DefaultTail = TailLimits{Initial: 256 << 10, Max: 4 << 20}

// Usage is the context in use after the last turn.
type Usage struct {
	// Found is false when no usage was found within the tail limit (or the
	// session compacted and has not had a turn since).
	Found bool
	// Tokens is input + cache creation + cache read (Claude), or the last
	// request's input tokens, which include the cached ones (Codex).
	Tokens                                  int64
	Input, CacheCreation, CacheRead, Output int64
	MessageID, Model                        string
	// Window is the model's context window when the transcript says
	// (Codex's model_context_window); 0 otherwise.
	Window int64
	// Compacted is set when a compact boundary was found after (or
	// instead of) the last usage; PreTokens/PostTokens come from its
	// metadata when present.
	Compacted             bool
	PreTokens, PostTokens int64
	// Size is the transcript's size; BytesRead how much of it was read.
	Size, BytesRead int64
}

// tail reads the end of a file in growing windows and calls scan with the
// complete lines of each window, last line first, until scan returns true.
func tail(open Opener, path string, lim TailLimits, scan func(line []byte) (done bool)) (size, read int64, err error) {
	if open == nil {
		open = OpenFile
	}
	if lim.Initial <= 0 {
		lim = DefaultTail
	}
	f, err := open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = st.Size()
	var buf []byte // bytes [off, size) of the file
	off := size
	scanned := size // lines starting at or after scanned were scanned
	want := lim.Initial
	for off > 0 {
		newOff := max(size-want, 0)
		chunk := make([]byte, off-newOff)
		n, rerr := f.ReadAt(chunk, newOff)
		read += int64(n)
		if rerr != nil && rerr != io.EOF {
			return size, read, rerr
		}
		buf = append(chunk[:n], buf...)
		off = newOff
		// The first line of the window may be cut unless it starts the
		// file; scan only whole lines not scanned before.
		start := 0
		if off > 0 {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				start = len(buf)
			} else {
				start = i + 1
			}
		}
		region := buf[start : scanned-off]
		for len(region) > 0 {
			region = bytes.TrimRight(region, "\n")
			i := bytes.LastIndexByte(region, '\n')
			line := region[i+1:]
			region = region[:i+1]
			if len(line) > 0 && scan(line) {
				return size, read, nil
			}
		}
		scanned = off + int64(start)
		if want >= lim.Max || off == 0 {
			break
		}
		want = min(want*2, lim.Max)
	}
	return size, read, nil
}

// ClaudeUsage finds the context in use in a Claude Code transcript: the
// usage of the last main-chain, non-synthetic assistant record after the
// last compact boundary, reading only a bounded tail.
func ClaudeUsage(open Opener, path string, lim TailLimits) (Usage, error) {
	var u Usage
	size, read, err := tail(open, path, lim, func(line []byte) bool {
		// Cheap filters first: most lines are neither.
		isAssistant := bytes.Contains(line, []byte(`"assistant"`))
		isBoundary := bytes.Contains(line, []byte(`compact_boundary`))
		if !isAssistant && !isBoundary {
			return false
		}
		if !gjson.ValidBytes(line) {
			return false // a torn or garbage line: Claude skips them too
		}
		r := gjson.ParseBytes(line)
		switch r.Get("type").String() {
		case "system":
			if r.Get("subtype").String() != "compact_boundary" {
				return false
			}
			u.Compacted = true
			u.PreTokens = r.Get("compactMetadata.preTokens").Int()
			u.PostTokens = r.Get("compactMetadata.postTokens").Int()
			return true
		case "assistant":
			if r.Get("isSidechain").Bool() || r.Get("isApiErrorMessage").Bool() {
				return false
			}
			msg := r.Get("message")
			model := msg.Get("model").String()
			usage := msg.Get("usage")
			if model == "<synthetic>" || !usage.Exists() {
				return false
			}
			// Records of one message share its id and usage; the last
			// one seen (the first found scanning backwards) is it.
			u.Found = true
			u.MessageID = msg.Get("id").String()
			u.Model = model
			u.Input = usage.Get("input_tokens").Int()
			u.CacheCreation = usage.Get("cache_creation_input_tokens").Int()
			u.CacheRead = usage.Get("cache_read_input_tokens").Int()
			u.Output = usage.Get("output_tokens").Int()
			u.Tokens = u.Input + u.CacheCreation + u.CacheRead
			return true
		}
		return false
	})
	u.Size, u.BytesRead = size, read
	if err != nil {
		return u, fmt.Errorf("read transcript tail: %w", err)
	}
	return u, nil
}

// CodexUsage finds the context in use in a Codex rollout: the latest
// token_count event's last_token_usage and model_context_window, unless a
// compaction came after it.
func CodexUsage(open Opener, path string, lim TailLimits) (Usage, error) {
	var u Usage
	size, read, err := tail(open, path, lim, func(line []byte) bool {
		isCount := bytes.Contains(line, []byte(`"token_count"`))
		isCompacted := bytes.Contains(line, []byte(`"compacted"`))
		if !isCount && !isCompacted {
			return false
		}
		if !gjson.ValidBytes(line) {
			return false
		}
		r := gjson.ParseBytes(line)
		switch {
		case r.Get("type").String() == "compacted":
			u.Compacted = true
			return true
		case r.Get("type").String() == "event_msg" && r.Get("payload.type").String() == "token_count":
			info := r.Get("payload.info")
			last := info.Get("last_token_usage")
			if !last.Exists() {
				return false // rate-limit-only updates carry info:null
			}
			u.Found = true
			u.Input = last.Get("input_tokens").Int()
			u.CacheRead = last.Get("cached_input_tokens").Int()
			u.CacheCreation = last.Get("cache_write_input_tokens").Int()
			u.Output = last.Get("output_tokens").Int()
			// The Responses API counts cached tokens inside input_tokens.
			u.Tokens = u.Input
			u.Window = info.Get("model_context_window").Int()
			return true
		}
		return false
	})
	u.Size, u.BytesRead = size, read
	if err != nil {
		return u, fmt.Errorf("read rollout tail: %w", err)
	}
	return u, nil
}

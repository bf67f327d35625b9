package wrap

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// transcript is what the wrapper knows of a session's file before the run.
type transcript struct {
	path string
	size int64
	cwd  string
	// valid is set when the head holds at least one JSON record.
	valid bool
}

// tailLimit bounds how much of what a run appended is read to tell why it
// failed; the error record is the last one written.
const tailLimit = 256 << 10

func (o Options) transcriptGlobs(id string) []string {
	if o.Harness == Codex {
		return []string{
			filepath.Join(o.CodexDir, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"),
			filepath.Join(o.CodexDir, "archived_sessions", "rollout-*-"+id+".jsonl"),
		}
	}
	return []string{filepath.Join(o.ClaudeDir, "projects", "*", id+".jsonl")}
}

func (o Options) findTranscript(id string) transcript {
	if strings.ContainsAny(id, `*?[\/`) || id == "" {
		return transcript{}
	}
	for _, g := range o.transcriptGlobs(id) {
		matches, _ := filepath.Glob(g)
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			t := transcript{path: m, size: st.Size()}
			t.valid, t.cwd = inspectHead(m, o.Harness)
			return t
		}
	}
	return transcript{}
}

// inspectHead reads the first 64 KiB: whether any line is a JSON object,
// and the cwd the session recorded.
func inspectHead(path string, h Harness) (valid bool, cwd string) {
	f, err := os.Open(path)
	if err != nil {
		return false, ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	sc.Buffer(make([]byte, 0, 16<<10), 64<<10)
	for sc.Scan() {
		line := sc.Bytes()
		if !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() {
			continue
		}
		valid = true
		key := "cwd"
		if h == Codex {
			key = "payload.cwd"
		}
		if c := gjson.GetBytes(line, key); c.Type == gjson.String && cwd == "" {
			cwd = c.Str
		}
		if cwd != "" {
			break
		}
	}
	return valid, cwd
}

// unusable says why a transcript cannot be resumed at all, or "".
func (t transcript) unusable() string {
	switch {
	case t.path == "":
		return "session not found"
	case t.size == 0:
		return "transcript is empty"
	case !t.valid:
		return "transcript is corrupt"
	}
	return ""
}

// resumeFailure decides, after a resume exited non-zero, whether the resume
// itself was the cause: the session was not found, the run appended no
// record at all (the agent could not load it), or what it appended ends in
// the context-overflow error. Any other failure (bad key, network, the user
// quitting) is the agent's to report and returns "".
func (o Options) resumeFailure(id string, before transcript) string {
	after := o.findTranscript(id)
	if after.path == "" {
		return "session not found"
	}
	if after.size <= before.size {
		return "the agent could not load the session"
	}
	appended := readRange(after.path, before.size, after.size)
	if o.Harness == Codex {
		if bytes.Contains(appended, []byte("context_window_exceeded")) || bytes.Contains(appended, []byte("ran out of room")) {
			return "context window exceeded"
		}
		return ""
	}
	var last gjson.Result
	chain := 0
	for _, line := range bytes.Split(appended, []byte("\n")) {
		if !gjson.ValidBytes(line) {
			continue
		}
		rec := gjson.ParseBytes(line)
		if rec.Get("uuid").Exists() {
			chain++
			last = rec
		}
	}
	if chain == 0 {
		return "the agent could not load the session"
	}
	if last.Get("isApiErrorMessage").Bool() && strings.Contains(strings.ToLower(last.Get("message.content.0.text").Str), "prompt is too long") {
		return "prompt too long"
	}
	return ""
}

func readRange(path string, from, to int64) []byte {
	if to-from > tailLimit {
		from = to - tailLimit
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, to-from)
	n, _ := f.ReadAt(buf, from)
	return buf[:n]
}

// newestSession finds the session a fresh start created: the transcript
// modified last since started. "" when there is none (yet).
func (o Options) newestSession(started time.Time) string {
	globs := []string{filepath.Join(o.ClaudeDir, "projects", "*", "*.jsonl")}
	if o.Harness == Codex {
		globs = []string{filepath.Join(o.CodexDir, "sessions", "*", "*", "*", "rollout-*.jsonl")}
	}
	var best string
	var bestT time.Time
	for _, g := range globs {
		matches, _ := filepath.Glob(g)
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || st.ModTime().Before(started.Add(-time.Second)) || !st.ModTime().After(bestT) {
				continue
			}
			best, bestT = m, st.ModTime()
		}
	}
	if best == "" {
		return ""
	}
	id := strings.TrimSuffix(filepath.Base(best), ".jsonl")
	if o.Harness == Codex && len(id) >= 36 {
		id = id[len(id)-36:]
	}
	return id
}

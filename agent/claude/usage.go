package claude

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
)

// Usage finds the context in use in a transcript: the usage of the last
// main-chain, non-synthetic assistant record after the last compact
// boundary, reading only a bounded tail.
func Usage(open jsonl.Opener, path string, lim jsonl.TailLimits) (agent.Usage, error) {
	var u agent.Usage
	size, read, err := jsonl.Tail(open, path, lim, func(line []byte) bool {
		// Cheap filters first: most lines are neither.
		isAssistant := bytes.Contains(line, []byte(`"assistant"`))
		isBoundary := bytes.Contains(line, []byte(SubtypeCompactBoundary))
		if !isAssistant && !isBoundary {
			return false
		}
		rec, ok := ParseRec(string(line))
		if !ok || !gjson.ValidBytes(line) {
			return false // a torn or garbage line: Claude skips them too
		}
		if rec.IsCompactBoundary() {
			u.Compacted = true
			u.PreTokens = rec.CompactMeta.Get("preTokens").Int()
			u.PostTokens = rec.PostTokens()
			return true
		}
		model, usage, ok := rec.MainChainUsage()
		if !ok {
			return false
		}
		// Records of one message share its id and usage; the last one
		// seen (the first found scanning backwards) is it.
		u.Found = true
		u.MessageID = rec.Message.Get("id").String()
		u.Model = model
		u.Input = usage.Get("input_tokens").Int()
		u.CacheCreation = usage.Get("cache_creation_input_tokens").Int()
		u.CacheRead = usage.Get("cache_read_input_tokens").Int()
		u.Output = usage.Get("output_tokens").Int()
		u.Tokens = ContextTokens(usage)
		return true
	})
	u.Size, u.BytesRead = size, read
	if err != nil {
		return u, fmt.Errorf("read transcript tail: %w", err)
	}
	return u, nil
}

// errorTail is how much of a transcript's end is read for its last error.
const errorTail = 64 << 10

// LastError reads whole lines and returns how many chain records (records
// with a uuid) they hold, and whether the last main-chain one is an API
// error, with its type and whether the prompt was too long.
func LastError(data []byte) (records int, errType string, tooLong, ok bool) {
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	decided := false
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if !bytes.Contains(line, []byte(`"`+KeyUUID+`"`)) || !gjson.ValidBytes(line) || !gjson.GetBytes(line, KeyUUID).Exists() {
			continue
		}
		records++
		if decided || gjson.GetBytes(line, KeyIsSidechain).Bool() {
			continue
		}
		decided = true
		errType, tooLong, ok = APIError(line)
	}
	return records, errType, tooLong, ok
}

// LastAPIError reads the end of a transcript and reports whether its last
// main-chain record is the API-error record Claude writes when a turn
// fails, with the error and whether it was prompt too long.
func LastAPIError(open jsonl.Opener, path string) (errType string, tooLong, ok bool) {
	if open == nil {
		open = jsonl.OpenFile
	}
	f, err := open(path)
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", false, false
	}
	n := min(st.Size(), errorTail)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, st.Size()-n); err != nil && !errors.Is(err, io.EOF) {
		return "", false, false
	}
	if st.Size() > n {
		// The first line of the window is cut.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	_, errType, tooLong, ok = LastError(buf)
	return errType, tooLong, ok
}

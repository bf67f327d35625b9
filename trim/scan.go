package trim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/jsonl"

	"github.com/tidwall/gjson"
)

// lineReader yields one line at a time with no length limit. The returned
// slice is valid until the next call; memory grows only to the longest line.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// next returns the next line without its newline, whether it ended with a
// newline, and io.EOF after the last line.
func (lr *lineReader) next() (line []byte, newline bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.buf = append(lr.buf, chunk...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		var out []byte
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, chunk...)
			out = lr.buf
		} else {
			out = chunk
		}
		if len(out) == 0 && errors.Is(err, io.EOF) {
			return nil, false, io.EOF
		}
		lr.line++
		if n := len(out); n > 0 && out[n-1] == '\n' {
			return out[:n-1], true, nil
		}
		return out, false, nil
	}
}

// Record classes.
const (
	classNonChain     = iota // no uuid chain: passed through
	classChain               // user, assistant, system, attachment, progress
	classUnknownChain        // carries a uuid but has a type this code does not know (--allow-unknown)
	classSkip                // blank line or truncated last line: never written
)

// The record and block type sets are Claude Code's: agent/claude owns them.
var (
	chainTypes      = claude.ChainTypes
	nonChainTypes   = claude.NonChainTypes
	envelopeKeys    = claude.EnvelopeKeys
	userBlocks      = claude.UserBlocks
	assistantBlocks = claude.AssistantBlocks
)

// toolUse is a tool_use block of a record.
type toolUse struct {
	id   string
	name string
	path string // input.file_path of a Read
}

// toolResult is a tool_result block of a record.
type toolResult struct {
	id    string
	block int // index in message.content
	size  int // bytes of its content
}

// rec is what pass 1 remembers of a line: small, whatever the line's size.
type rec struct {
	line      int
	size      int64 // bytes including the newline
	class     uint8
	typ       string
	uuid      string
	parent    string // "" is null
	logical   string // logicalParentUuid of a compact boundary
	leaf      string // leafUuid of a non-chain record
	version   string
	sidechain bool
	meta      bool
	human     bool
	boundary  bool
	summary   bool // isCompactSummary
	synthetic bool // API error stored as an assistant message
	thinking  bool // has a thinking or redacted_thinking block
	text      bool // has a text block (assistant)
	unknown   string
	uses      []toolUse
	results   []toolResult
	send      int64 // bytes of what the model is sent for this record
	turSize   int64 // bytes of toolUseResult
	model     string
	// unrendered marks an attachment without "rendered": in files whose
	// attachments carry "rendered" (2.1.x) such records are bookkeeping
	// (prompt_snapshot, session_context) the model is never sent.
	unrendered bool
}

// FormatError is a refusal: the transcript has something this code does not
// understand in a place it would have to edit.
type FormatError struct {
	Line    int
	Type    string
	Version string
	Reason  string
}

func (e *FormatError) Error() string {
	v := e.Version
	if v == "" {
		v = "unknown"
	}
	return fmt.Sprintf("line %d: %s (type %q, version %s); the transcript format may have changed: nothing was modified (--allow-unknown passes such records through untouched)", e.Line, e.Reason, e.Type, v)
}

// scanResult is pass 1's index of a transcript.
type scanResult struct {
	recs  []rec
	bytes int64
}

// scan indexes a transcript. It rejects invalid JSON (except a truncated
// last line, which Claude Code itself ignores), missing envelope keys and
// unknown chain types (unless allowUnknown).
func scan(r io.Reader, allowUnknown bool) (*scanResult, error) {
	lr := newLineReader(r)
	res := &scanResult{}
	for {
		line, nl, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size := int64(len(line))
		if nl {
			size++
		}
		res.bytes += size
		rc := rec{line: lr.line, size: size}
		if len(trimSpaceBytes(line)) == 0 {
			rc.class = classSkip
			res.recs = append(res.recs, rc)
			continue
		}
		// jsonl.Valid, not gjson.ValidBytes: the same answer (fuzzed against
		// it) at several times the speed on long strings; the validator of
		// the written file keeps gjson, a second implementation.
		if !jsonl.Valid(line) {
			if !nl {
				// A crash mid-append leaves a partial last line; Claude Code skips it.
				rc.class = classSkip
				res.recs = append(res.recs, rc)
				continue
			}
			return nil, fmt.Errorf("line %d: not valid JSON", lr.line)
		}
		if err := classify(line, &rc, allowUnknown); err != nil {
			return nil, err
		}
		res.recs = append(res.recs, rc)
	}
	return res, nil
}

func trimSpaceBytes(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func classify(line []byte, rc *rec, allowUnknown bool) error {
	root := gjson.Parse(transient(line))
	if !root.IsObject() {
		return fmt.Errorf("line %d: not a JSON object", rc.line)
	}
	var (
		hasKey  = map[string]bool{}
		message gjson.Result
		content gjson.Result
	)
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		hasKey[key] = true
		switch key {
		case "type":
			rc.typ = strings.Clone(v.Str)
		case "uuid":
			rc.uuid = strings.Clone(v.Str)
		case "parentUuid":
			rc.parent = strings.Clone(v.Str)
		case "logicalParentUuid":
			rc.logical = strings.Clone(v.Str)
		case "leafUuid":
			rc.leaf = strings.Clone(v.Str)
		case "version":
			rc.version = strings.Clone(v.Str)
		case "isSidechain":
			rc.sidechain = (v.Type == gjson.True)
		case "isMeta":
			rc.meta = (v.Type == gjson.True)
		case claude.KeyIsCompactSummary:
			rc.summary = (v.Type == gjson.True)
		case claude.KeyIsAPIErrorMessage:
			rc.synthetic = rc.synthetic || (v.Type == gjson.True)
		case claude.KeySubtype:
			rc.boundary = v.Str == claude.SubtypeCompactBoundary
		case "message":
			message = v
		case "toolUseResult":
			rc.turSize = int64(len(v.Raw))
		case "attachment":
			if !hasKey["rendered"] {
				rc.send = int64(len(v.Raw))
				rc.unrendered = true
			}
		case "rendered":
			rc.send = int64(len(v.Raw))
			rc.unrendered = false
		case claude.KeyPromptSource:
			if !claude.HumanPromptSource(v.Str) {
				hasKey["_notHuman"] = true
			}
		}
		return true
	})
	if rc.typ != "system" {
		rc.boundary = false
	}
	if rc.typ == "" && !hasKey["type"] {
		rc.typ = "(none)"
	}
	_, isChainKey := hasKey["uuid"]
	switch {
	case chainTypes[rc.typ]:
		rc.class = classChain
	case nonChainTypes[rc.typ] || (!isChainKey && !hasKey["parentUuid"]):
		rc.class = classNonChain
		// Non-chain records have no uuid; should one carry a uuid and a
		// parentUuid anyway, it is re-linked like a chain record so that
		// the output stays consistent.
		rc.logical = ""
		return nil
	default:
		if !allowUnknown {
			return &FormatError{Line: rc.line, Type: rc.typ, Version: rc.version, Reason: "unknown chain record type"}
		}
		rc.class = classUnknownChain
		if rc.uuid == "" {
			rc.class = classNonChain
			rc.parent = ""
		}
		return nil
	}
	rc.leaf = ""
	for _, k := range envelopeKeys {
		if !hasKey[k] {
			return &FormatError{Line: rc.line, Type: rc.typ, Version: rc.version, Reason: fmt.Sprintf("chain record without %q", k)}
		}
	}
	if rc.uuid == "" {
		return &FormatError{Line: rc.line, Type: rc.typ, Version: rc.version, Reason: "chain record with an empty uuid"}
	}
	if rc.typ != "user" && rc.typ != "assistant" {
		return nil
	}
	if !message.IsObject() {
		return &FormatError{Line: rc.line, Type: rc.typ, Version: rc.version, Reason: "chain record without a \"message\" object"}
	}
	content = message.Get("content")
	rc.model = strings.Clone(message.Get("model").Str)
	if rc.model == claude.SyntheticModel {
		rc.synthetic = true
	}
	rc.send = int64(len(content.Raw))
	switch {
	case content.Type == gjson.String:
		if rc.typ == "assistant" {
			rc.text = true
		} else {
			rc.human = isHumanText(content.Str)
		}
	case content.IsArray():
		blocks := userBlocks
		if rc.typ == "assistant" {
			blocks = assistantBlocks
		}
		i := 0
		content.ForEach(func(_, b gjson.Result) bool {
			bt := b.Get("type").Str
			if !blocks[bt] && rc.unknown == "" {
				rc.unknown = strings.Clone(bt)
				if bt == "" {
					rc.unknown = "(none)"
				}
			}
			switch bt {
			case "text":
				rc.text = true
				if rc.typ == "user" && !rc.human {
					// A prompt may come with images or CLI-written reminders
					// around it: any typed text makes it a human prompt.
					rc.human = isHumanText(b.Get("text").Str)
				}
			case "thinking", "redacted_thinking":
				rc.thinking = true
			case "tool_use":
				u := toolUse{id: strings.Clone(b.Get("id").Str), name: strings.Clone(b.Get("name").Str)}
				if u.name == "Read" {
					u.path = strings.Clone(b.Get("input.file_path").Str)
				}
				rc.uses = append(rc.uses, u)
			case "tool_result":
				rc.results = append(rc.results, toolResultOf(b.Raw, i))
			}
			i++
			return true
		})
		if len(rc.results) > 0 {
			rc.human = false
		}
	default:
		return &FormatError{Line: rc.line, Type: rc.typ, Version: rc.version, Reason: "message.content is neither a string nor an array"}
	}
	if rc.typ == "user" && (rc.meta || rc.sidechain || rc.summary || hasKey["_notHuman"]) {
		rc.human = false
	}
	return nil
}

// toolResultOf reads a tool_result block's id and content size in one
// pass that jumps over the content instead of decoding it: two gjson Gets
// unescaped a multi-megabyte tool output to measure it and cost a third
// of the scan pass.
func toolResultOf(block string, i int) toolResult {
	r := toolResult{block: i}
	var haveID, haveContent bool // the first of duplicate keys wins, as in gjson
	jsonl.EachTop(block, func(key, val string) bool {
		switch {
		case key == "tool_use_id" && !haveID:
			r.id, haveID = strings.Clone(gjson.Parse(val).Str), true
		case key == "content" && !haveContent:
			r.size, haveContent = len(val), true
		}
		return !haveID || !haveContent
	})
	return r
}

// isHumanText is the one human-prompt text rule (agent/claude), shared
// with the catalog's titles.
func isHumanText(s string) bool { return claude.IsHumanText(s) }

// transient views a line as a string without copying it. The line buffer is
// reused for the next line, so every string kept beyond this record is
// cloned (strings.Clone); a kept substring would also pin the whole line.
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

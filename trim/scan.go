package trim

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/agent/jsonl"
)

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
	id   tid
	read bool   // a Read
	path string // input.file_path of a Read
}

// toolResult is a tool_result block of a record.
type toolResult struct {
	id    tid
	block int32 // index in message.content
	size  int   // bytes of its content
}

// span32 is a record's run of tool blocks in the scan's shared slices.
type span32 struct{ at, n int32 }

// rec is what pass 1 remembers of a line: small (under 100 bytes) and
// without a pointer of its own, whatever the line's size. Strings live
// once in the scan's tables: uuids as uids, types and versions as names.
type rec struct {
	size      int64 // bytes including the newline
	send      int64 // bytes of what the model is sent for this record
	turSize   int64 // bytes of toolUseResult
	line      int32
	uuid      uid
	parent    uid // 0 is null
	logical   uid // logicalParentUuid of a compact boundary
	leaf      uid // leafUuid of a non-chain record
	typ       name
	version   name
	model     name
	unknown   name // the first unknown content-block type
	uses      span32
	results   span32
	class     uint8
	sidechain bool
	meta      bool
	human     bool
	boundary  bool
	summary   bool // isCompactSummary
	synthetic bool // API error stored as an assistant message
	thinking  bool // has a thinking or redacted_thinking block
	text      bool // has a text block (assistant)
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
	recs    []rec
	bytes   int64
	uuids   *uuidTab
	names   *nameTab
	tools   toolTab
	uses    []toolUse    // every record's tool_use blocks, in order (rec.uses)
	results []toolResult // every record's tool_result blocks (rec.results)
	paths   arena        // the file_path of each Read
	buf     []byte       // the line buffer, for the next pass
	// refusal is the last main-chain record that says the API refused
	// the prompt as too long (its index in recs; -1 for none), with the
	// API's count when the record states it.
	refusal      int
	refusalCount claude.Refusal
}

func newScanResult() *scanResult {
	return &scanResult{uuids: newUUIDTab(), names: newNameTab(), refusal: -1}
}

func (sr *scanResult) usesOf(rc *rec) []toolUse {
	return sr.uses[rc.uses.at : rc.uses.at+rc.uses.n]
}

func (sr *scanResult) resultsOf(rc *rec) []toolResult {
	return sr.results[rc.results.at : rc.results.at+rc.results.n]
}

// formatError is a FormatError about rc.
func (sr *scanResult) formatError(rc *rec, reason string) *FormatError {
	return &FormatError{Line: int(rc.line), Type: sr.names.text(rc.typ), Version: sr.names.text(rc.version), Reason: reason}
}

// scan indexes a transcript. It rejects invalid JSON (except a truncated
// last line, which Claude Code itself ignores), missing envelope keys and
// unknown chain types (unless allowUnknown).
func scan(r io.Reader, allowUnknown bool) (*scanResult, error) {
	lr := newLineReader(r)
	sr := newScanResult()
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
		sr.bytes += size
		rc := rec{line: int32(lr.line), size: size}
		if len(trimSpaceBytes(line)) == 0 {
			rc.class = classSkip
			sr.recs = append(sr.recs, rc)
			continue
		}
		// jsonl.Valid, not gjson.ValidBytes: the same answer (fuzzed against
		// it) at several times the speed on long strings (with gjson a
		// 64 MiB trim --fit 60% took 148 ms of CPU, not 120: medians of
		// 12); the validator of the written file keeps gjson, a second
		// implementation.
		if !jsonl.Valid(line) {
			if !nl {
				// A crash mid-append leaves a partial last line; Claude Code skips it.
				rc.class = classSkip
				sr.recs = append(sr.recs, rc)
				continue
			}
			return nil, fmt.Errorf("line %d: not valid JSON", lr.line)
		}
		if err := sr.classify(line, &rc, allowUnknown); err != nil {
			return nil, err
		}
		if rc.synthetic && rc.class == classChain && !rc.sidechain {
			// Rare (one per failed turn), so the full parse is cheap.
			if r, ok := claude.TooLongRefusal(line); ok {
				sr.refusal, sr.refusalCount = len(sr.recs), r
			}
		}
		sr.recs = append(sr.recs, rc)
	}
	sr.buf = lr.take()
	return sr, nil
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

// Presence bits of the top-level keys classify checks for.
const (
	hasType uint32 = 1 << iota
	hasUUID
	hasParent
	hasRendered
	hasNotHuman // a promptSource that is not a human's
	firstEnvelopeBit
)

// keyBits maps each key whose presence matters to its bit: the envelope
// keys (agent/claude's list) get one each above firstEnvelopeBit.
var keyBits, envelopeMask = func() (map[string]uint32, uint32) {
	m := map[string]uint32{"type": hasType, "uuid": hasUUID, "parentUuid": hasParent, claude.KeyRendered: hasRendered}
	var mask uint32
	for i, k := range envelopeKeys {
		b := firstEnvelopeBit << i
		m[k] |= b
		mask |= b
	}
	return m, mask
}()

// classify reads a line's envelope and content blocks by raw walks over
// the line (agent/jsonl), which jump over string bodies; the line was
// checked by jsonl.Valid before. Where keys repeat, it takes what gjson
// did: the last of each top-level key, the first of each nested one.
func (sr *scanResult) classify(line []byte, rc *rec, allowUnknown bool) error {
	var (
		seen    uint32
		typ     string
		message string
	)
	isObject := jsonl.Members(transient(line), func(k, v string) bool {
		key := jsonl.Key(k)
		seen |= keyBits[key]
		switch key {
		case "type":
			typ = jsonl.Str(v)
		case "uuid":
			rc.uuid = sr.uuids.intern(jsonl.Str(v))
		case "parentUuid":
			rc.parent = sr.uuids.intern(jsonl.Str(v))
		case "logicalParentUuid":
			rc.logical = sr.uuids.intern(jsonl.Str(v))
		case "leafUuid":
			rc.leaf = sr.uuids.intern(jsonl.Str(v))
		case "version":
			rc.version = sr.names.intern(jsonl.Str(v))
		case "isSidechain":
			rc.sidechain = jsonl.IsTrue(v)
		case "isMeta":
			rc.meta = jsonl.IsTrue(v)
		case claude.KeyIsCompactSummary:
			rc.summary = jsonl.IsTrue(v)
		case claude.KeyIsAPIErrorMessage:
			rc.synthetic = rc.synthetic || jsonl.IsTrue(v)
		case claude.KeySubtype:
			rc.boundary = jsonl.Str(v) == claude.SubtypeCompactBoundary
		case "message":
			message = v
		case "toolUseResult":
			rc.turSize = int64(len(v))
		case "attachment":
			if seen&hasRendered == 0 {
				rc.send = int64(len(v))
				rc.unrendered = true
			}
		case claude.KeyRendered:
			rc.send = int64(len(v))
			rc.unrendered = false
		case claude.KeyPromptSource:
			if !claude.HumanPromptSource(jsonl.Str(v)) {
				seen |= hasNotHuman
			}
		}
		return true
	})
	if !isObject {
		return fmt.Errorf("line %d: not a JSON object", rc.line)
	}
	rc.typ = sr.names.intern(typ)
	if rc.typ != nameSystem {
		rc.boundary = false
	}
	if rc.typ == nameEmpty && seen&hasType == 0 {
		rc.typ = nameNone
	}
	switch {
	case chainTypes[typ] && rc.typ != nameNone:
		rc.class = classChain
	case nonChainTypes[typ] || seen&(hasUUID|hasParent) == 0:
		rc.class = classNonChain
		// Non-chain records have no uuid; should one carry a uuid and a
		// parentUuid anyway, it is re-linked like a chain record so that
		// the output stays consistent.
		rc.logical = 0
		return nil
	default:
		if !allowUnknown {
			return sr.formatError(rc, "unknown chain record type")
		}
		rc.class = classUnknownChain
		if rc.uuid == 0 {
			rc.class = classNonChain
			rc.parent = 0
		}
		return nil
	}
	rc.leaf = 0
	for i, k := range envelopeKeys {
		if seen&(firstEnvelopeBit<<i) == 0 {
			return sr.formatError(rc, fmt.Sprintf("chain record without %q", k))
		}
	}
	if rc.uuid == 0 {
		return sr.formatError(rc, "chain record with an empty uuid")
	}
	if rc.typ != nameUser && rc.typ != nameAssistant {
		return nil
	}
	if err := sr.classifyMessage(message, rc); err != nil {
		return err
	}
	if rc.typ == nameUser && (rc.meta || rc.sidechain || rc.summary || seen&hasNotHuman != 0) {
		rc.human = false
	}
	return nil
}

// Keys read from a message and from its content blocks.
var (
	messageKeys = []string{"content", "model"}
	blockKeys   = []string{"type", "text", "id", "name", "input", "tool_use_id", "content"}
	inputKeys   = []string{"file_path"}
)

const (
	bType = iota
	bText
	bID
	bName
	bInput
	bToolUseID
	bContent
	bKeys // how many
)

// classifyMessage reads message.content of a user or assistant record.
func (sr *scanResult) classifyMessage(message string, rc *rec) error {
	var mv [2]string
	if !jsonl.Get(message, messageKeys, mv[:]) {
		return sr.formatError(rc, "chain record without a \"message\" object")
	}
	content := mv[0]
	rc.model = sr.names.intern(jsonl.Str(mv[1]))
	if sr.names.text(rc.model) == claude.SyntheticModel {
		rc.synthetic = true
	}
	rc.send = int64(len(content))
	switch {
	case len(content) > 0 && content[0] == '"':
		if rc.typ == nameAssistant {
			rc.text = true
		} else {
			rc.human = isHumanText(jsonl.Str(content))
		}
	case len(content) > 0 && content[0] == '[':
		sr.classifyBlocks(content, rc)
	default:
		return sr.formatError(rc, "message.content is neither a string nor an array")
	}
	return nil
}

// classifyBlocks reads the content blocks of a message: one walk over
// each block for all the keys any block type needs.
func (sr *scanResult) classifyBlocks(content string, rc *rec) {
	blocks := userBlocks
	if rc.typ == nameAssistant {
		blocks = assistantBlocks
	}
	rc.uses.at, rc.results.at = int32(len(sr.uses)), int32(len(sr.results))
	var bv [bKeys]string
	i := int32(0)
	jsonl.Elems(content, func(b string) bool {
		jsonl.Get(b, blockKeys, bv[:])
		bt := jsonl.Str(bv[bType])
		if !blocks[bt] && rc.unknown == nameEmpty {
			rc.unknown = sr.names.intern(bt)
			if bt == "" {
				rc.unknown = nameNone
			}
		}
		switch bt {
		case claude.BlockText:
			rc.text = true
			if rc.typ == nameUser && !rc.human {
				// A prompt may come with images or CLI-written reminders
				// around it: any typed text makes it a human prompt.
				rc.human = isHumanText(jsonl.Str(bv[bText]))
			}
		case claude.BlockThinking, claude.BlockRedactedThinking:
			rc.thinking = true
		case claude.BlockToolUse:
			u := toolUse{id: sr.tools.intern(jsonl.Str(bv[bID])), read: jsonl.Str(bv[bName]) == "Read"}
			if u.read {
				var path [1]string
				jsonl.Get(bv[bInput], inputKeys, path[:])
				u.path = sr.paths.clone(jsonl.Str(path[0]))
			}
			sr.uses = append(sr.uses, u)
			rc.uses.n++
		case claude.BlockToolResult:
			sr.results = append(sr.results, toolResult{id: sr.tools.intern(jsonl.Str(bv[bToolUseID])), block: i, size: len(bv[bContent])})
			rc.results.n++
		}
		i++
		return true
	})
	if rc.results.n > 0 {
		rc.human = false
	}
}

// isHumanText is the one human-prompt text rule (agent/claude), shared
// with the catalog's titles.
func isHumanText(s string) bool { return claude.IsHumanText(s) }

// transient views a line as a string without copying it. The line buffer is
// reused for the next line, so every string kept beyond this record is
// interned or cloned; a kept substring would also pin the whole buffer.
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

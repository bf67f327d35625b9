package catalog

import (
	"bytes"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"syscall"

	"github.com/tether-dev/tether/agent/claude"

	"github.com/tidwall/gjson"
)

// claude applies the rule to one record: it reports whether rec counts
// (as a message or as part of the last one) and whether it began a new
// message.
func countClaude(m *MessageCount, rec claude.Rec) (counted, isNew bool) {
	var model, id string
	if rec.Type == claude.TypeAssistant && !rec.Sidechain && !rec.APIError {
		model, id = rec.Message.Get("model").String(), rec.Message.Get("id").String()
	}
	return countClaudeMessage(m, rec, model, id)
}

// claudeMessage is claude with the assistant message's model and id
// already read (search reads them in the same pass as its content).
func countClaudeMessage(m *MessageCount, rec claude.Rec, model, id string) (counted, isNew bool) {
	switch rec.Type {
	case claude.TypeUser:
		if rec.Sidechain {
			return false, false
		}
		m.N++
		return true, true
	case claude.TypeAssistant:
		if rec.Sidechain || rec.APIError || model == claude.SyntheticModel {
			return false, false
		}
		if id := idHash(id); id != m.Last {
			m.N++
			m.Last = id
			return true, true
		}
		return true, false
	}
	return false, false
}

// codex applies the rule to one rollout item of type typ with payload p.
func countCodex(m *MessageCount, typ string, p gjson.Result) {
	if typ != "response_item" || p.Get("type").String() != "message" {
		return
	}
	if role := p.Get("role").String(); role == "assistant" || role == "user" {
		m.N++
	}
}

// idHash stands for a message id in the carry: 0 for none, so a first
// assistant record without an id counts as the first scan always did
// (not at all).
func idHash(id string) uint64 {
	if id == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// countLine applies the rule to one line of harness's format (lines the
// texts reader and the incremental count parse for nothing else).
func countLine(m *MessageCount, harness string, line []byte) {
	switch harness {
	case ClaudeCode:
		if rec, ok := claude.ParseRec(bytesString(line, true)); ok {
			countClaude(m, rec)
		}
	case Codex:
		typ, p, _ := codexEnvelope(bytesString(line, true))
		countCodex(m, typ, p)
	}
}

// countComplete counts the newline-terminated lines of b, which starts at
// m.Off, and moves m.Off past them; a last line still being written is
// left for later.
func countComplete(m *MessageCount, harness string, b []byte) {
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return
	}
	eachLine(b[:end+1], func(line []byte) { countLine(m, harness, line) })
	m.Off += int64(end + 1)
}

// scanCounting feeds the lines of b (a whole file) to line, with *counter
// set to mc for its complete lines, so the scan counts them in the same
// parse; mc.Off ends up after them. A last line still being written is
// scanned but not counted.
func scanCounting(b []byte, mc *MessageCount, counter **MessageCount, line func([]byte)) {
	end := bytes.LastIndexByte(b, '\n') + 1
	*counter = mc
	eachLine(b[:end], line)
	*counter = nil
	mc.Off = int64(end)
	eachLine(b[end:], line)
}

// msgState is what a list keeps to know a transcript's message count
// exactly and cheaply: the count (Known) and the identity of the file it
// is of. A file read whole is counted by the list's own scan; one that
// grew has only its new bytes counted; others get their count from the
// search index (CountIndex), which reads every transcript whole.
type msgState struct {
	Known bool
	Count MessageCount
	// Ino and Head identify the file: a rewrite (trim, restore: a new
	// file renamed into place) changes the inode, and one in place most
	// likely its first bytes (Head is a CRC of the first HeadLen).
	Ino     uint64
	Head    uint32
	HeadLen int32
}

// fpLen is how many of a file's first bytes its Head fingerprint covers.
const fpLen = 4096

// appendCap is how many appended bytes beyond the tail it read anyway a
// list reads to keep a count current; a file that grew more loses its
// count until the search index counts it.
const appendCap = 1 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// nextMsgState is the message state of a file just read as c: counted is
// the scan's count when it read the file whole (whole set), prev the
// state of the last read, if any. A file that only grew since has its
// appended bytes counted: from the tail already read when it covers them,
// else read (at most appendCap bytes).
func nextMsgState(harness string, f io.ReaderAt, fi os.FileInfo, c chunks, whole bool, counted MessageCount, prev msgState, hadPrev bool) msgState {
	st := msgState{Ino: inode(fi), HeadLen: int32(min(len(c.rawHead), fpLen))}
	st.Head = crc32.Checksum(c.rawHead[:st.HeadLen], crcTable)
	switch {
	case whole:
		st.Known, st.Count = true, counted
		return st
	case !hadPrev || !prev.Known || prev.Ino != st.Ino || prev.Count.Off > c.size ||
		int(prev.HeadLen) > len(c.rawHead) || crc32.Checksum(c.rawHead[:prev.HeadLen], crcTable) != prev.Head:
		return st // never counted, or rewritten
	}
	mc := prev.Count
	var added []byte
	switch {
	case c.rawTail != nil && mc.Off >= c.tailAt:
		added = c.rawTail[mc.Off-c.tailAt:]
	case c.rawTail != nil && c.tailAt-mc.Off <= appendCap:
		buf := make([]byte, c.tailAt-mc.Off, c.size-mc.Off)
		if n, _ := f.ReadAt(buf, mc.Off); n < len(buf) {
			return st // shrank since it was read
		}
		added = append(buf, c.rawTail...)
	default:
		return st
	}
	if b, ok := c.byteAt(mc.Off - 1); ok && b != '\n' {
		return st // the count did not end on a line boundary: not this file
	}
	countComplete(&mc, harness, added)
	st.Known, st.Count = true, mc
	return st
}

// fillCounts takes from ix the counts of the cached files in missing,
// once per state of the index: the stamp it was asked at is kept in the
// cache, so warm lists do not ask again until the index changes.
func (c *Cache) fillCounts(ix CountIndex, missing []string) map[string]MessageCount {
	if c == nil || ix == nil || len(missing) == 0 {
		return nil
	}
	stamp := ix.Stamp()
	if stamp == "" || stamp == c.countStamp() {
		return nil
	}
	look, err := ix.Load()
	if err != nil {
		return nil
	}
	got := map[string]MessageCount{}
	for _, p := range missing {
		if mc, ok := c.withMsgState(p, look); ok {
			got[p] = mc
		}
	}
	c.setCountStamp(stamp)
	return got
}

// byteAt is the byte of the file at off, when the chunks hold it.
func (c chunks) byteAt(off int64) (byte, bool) {
	switch {
	case off < 0:
		return 0, false
	case off < int64(len(c.rawHead)):
		return c.rawHead[off], true
	case c.rawTail != nil && off >= c.tailAt && off-c.tailAt < int64(len(c.rawTail)):
		return c.rawTail[off-c.tailAt], true
	}
	return 0, false
}

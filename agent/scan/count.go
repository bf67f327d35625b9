package scan

import (
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"syscall"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/bincodec"
)

// CountComplete counts the newline-terminated lines of b, which starts at
// m.Off, and moves m.Off past them; a last line still being written is
// left for later.
func CountComplete(m *agent.MessageCount, b []byte, countLine func(m *agent.MessageCount, line []byte)) {
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return
	}
	EachLine(b[:end+1], func(line []byte) { countLine(m, line) })
	m.Off += int64(end + 1)
}

// ScanCounting feeds the lines of b (a whole file) to line, with *counter
// set to mc for its complete lines, so the scan counts them in the same
// parse; mc.Off ends up after them. A last line still being written is
// scanned but not counted.
func ScanCounting(b []byte, mc *agent.MessageCount, counter **agent.MessageCount, line func([]byte)) {
	end := bytes.LastIndexByte(b, '\n') + 1
	*counter = mc
	EachLine(b[:end], line)
	*counter = nil
	mc.Off = int64(end)
	EachLine(b[end:], line)
}

// MsgState is what a list keeps to know a transcript's message count
// exactly and cheaply: the count (Known) and the identity of the file it
// is of. A file read whole is counted by the list's own scan; one that
// grew has only its new bytes counted; others get their count from the
// search index (CountIndex), which reads every transcript whole.
type MsgState struct {
	Known bool
	Count agent.MessageCount
	// Ino and Head identify the file: a rewrite (trim, restore: a new
	// file renamed into place) changes the Inode, and one in place most
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

func Inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// NextMsgState is the message state of a file just read as c: counted is
// the scan's count when it read the file whole (whole set), prev the
// state of the last read, if any. A file that only grew since has its
// appended bytes counted: from the tail already read when it covers them,
// else read (at most appendCap bytes).
func NextMsgState(f io.ReaderAt, fi os.FileInfo, c Chunks, whole bool, counted agent.MessageCount, prev MsgState, hadPrev bool, countLine func(m *agent.MessageCount, line []byte)) MsgState {
	st := MsgState{Ino: Inode(fi), HeadLen: int32(min(len(c.RawHead), fpLen))}
	st.Head = crc32.Checksum(c.RawHead[:st.HeadLen], crcTable)
	switch {
	case whole:
		st.Known, st.Count = true, counted
		return st
	case !hadPrev || !prev.Known || prev.Ino != st.Ino || prev.Count.Off > c.Size ||
		int(prev.HeadLen) > len(c.RawHead) || crc32.Checksum(c.RawHead[:prev.HeadLen], crcTable) != prev.Head:
		return st // never counted, or rewritten
	}
	mc := prev.Count
	var added []byte
	switch {
	case c.RawTail != nil && mc.Off >= c.TailAt:
		added = c.RawTail[mc.Off-c.TailAt:]
	case c.RawTail != nil && c.TailAt-mc.Off <= appendCap:
		buf := make([]byte, c.TailAt-mc.Off, c.Size-mc.Off)
		if n, _ := f.ReadAt(buf, mc.Off); n < len(buf) {
			return st // shrank since it was read
		}
		added = append(buf, c.RawTail...)
	default:
		return st
	}
	if b, ok := c.ByteAt(mc.Off - 1); ok && b != '\n' {
		return st // the count did not end on a line boundary: not this file
	}
	CountComplete(&mc, added, countLine)
	st.Known, st.Count = true, mc
	return st
}

// PutMsgState writes m for a cache's codec.
func PutMsgState(w *bincodec.Writer, m MsgState) {
	w.Bool(m.Known)
	w.Int(int64(m.Count.N))
	w.Int(m.Count.Off)
	w.Uint(m.Count.Last)
	w.Uint(m.Ino)
	w.Uint(uint64(m.Head))
	w.Int(int64(m.HeadLen))
}

// GetMsgState reads what PutMsgState wrote.
func GetMsgState(r *bincodec.Reader) MsgState {
	var m MsgState
	m.Known = r.Bool()
	m.Count.N = int(r.Int())
	m.Count.Off = r.Int()
	m.Count.Last = r.Uint()
	m.Ino = r.Uint()
	m.Head = uint32(r.Uint())
	m.HeadLen = int32(r.Int())
	return m
}

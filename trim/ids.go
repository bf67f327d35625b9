package trim

import (
	"strconv"
	"unsafe"

	"github.com/tether-dev/tether/agent/claude"
)

// A transcript of a million records names each record's uuid two or three
// times (its own, its children's parentUuid, a leafUuid). Kept as strings
// they were a third of the plan's memory; the scan interns each distinct
// value once instead and records small integers.

// uid is an interned uuid: 0 is "" (absent, null or not a string).
type uid int32

// uuidTab interns uuids. A canonical uuid (36 bytes, lower-case hex and
// four dashes: what Claude Code writes) is stored as its 16 bytes; any
// other string (an unfamiliar id) as itself, so every value round-trips
// exactly.
type uuidTab struct {
	byUUID map[[16]byte]uid
	byStr  map[string]uid
	uuids  [][16]byte     // uid-1 -> value, when canonical
	strs   map[uid]string // uid -> value, when not
	arena  arena
}

func newUUIDTab() *uuidTab {
	return &uuidTab{byUUID: map[[16]byte]uid{}, byStr: map[string]uid{}, strs: map[uid]string{}}
}

// intern returns the uid of s (a view that need not outlive the call).
func (t *uuidTab) intern(s string) uid {
	if s == "" {
		return 0
	}
	if u, ok := parseUUID(s); ok {
		if id, ok := t.byUUID[u]; ok {
			return id
		}
		t.uuids = append(t.uuids, u)
		id := uid(len(t.uuids))
		t.byUUID[u] = id
		return id
	}
	if id, ok := t.byStr[s]; ok {
		return id
	}
	t.uuids = append(t.uuids, [16]byte{})
	id := uid(len(t.uuids))
	s = t.arena.clone(s)
	t.byStr[s] = id
	t.strs[id] = s
	return id
}

// len is one more than the largest uid.
func (t *uuidTab) len() int { return len(t.uuids) + 1 }

// text is the string id was interned from.
func (t *uuidTab) text(id uid) string {
	if id == 0 {
		return ""
	}
	if s, ok := t.strs[id]; ok {
		return s
	}
	return formatUUID(t.uuids[id-1])
}

// quoted appends id as a JSON value: a string, or null for 0.
func (t *uuidTab) quoted(b []byte, id uid) []byte {
	if id == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendQuote(b, t.text(id))
}

const hexDigits = "0123456789abcdef"

// dashAt marks the dashes of a canonical uuid.
func dashAt(i int) bool { return i == 8 || i == 13 || i == 18 || i == 23 }

// hexVal is the value of a lower-case hex digit, 0xff for any other byte.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range hexDigits {
		t[c] = byte(i)
	}
	return t
}()

// parseUUID reads a canonical uuid; anything else (upper case, braces,
// another length) is not one, so formatUUID gives back the very bytes.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	n := 0
	var bad byte
	for i := 0; i < 36; i += 2 {
		if dashAt(i) {
			i--
			continue
		}
		hi, lo := hexVal[s[i]], hexVal[s[i+1]]
		bad |= hi | lo
		u[n] = hi<<4 | lo
		n++
	}
	return u, bad&0xf0 == 0
}

func formatUUID(u [16]byte) string {
	var b [36]byte
	n := 0
	for i := 0; i < 36; i++ {
		if dashAt(i) {
			b[i] = '-'
			continue
		}
		b[i] = hexDigits[u[n]>>4]
		b[i+1] = hexDigits[u[n]&15]
		n++
		i++
	}
	return string(b[:])
}

// arena keeps many small strings in a few large blocks: one allocation
// per 64 KiB instead of one per string. Strings it returns stay valid
// (a block is never moved or reused).
type arena struct{ block []byte }

func (a *arena) clone(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > cap(a.block)-len(a.block) {
		a.block = make([]byte, 0, max(64<<10, len(s)))
	}
	at := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[at], len(s))
}

// name is an interned string that is not a uuid (a record type, a
// version, a model, a block type): 0 is "".
type name uint32

// The record types the planner asks about, interned first by newNameTab.
const (
	nameEmpty name = iota
	nameUser
	nameAssistant
	nameSystem
	nameAttachment
	nameProgress
	nameNone // "(none)": a record without a type
)

// nameTab interns the few distinct strings of a transcript that are not
// uuids: every record points at one shared copy.
type nameTab struct {
	idx   map[string]name
	list  []string
	arena arena
}

func newNameTab() *nameTab {
	t := &nameTab{idx: map[string]name{"": 0}, list: []string{""}}
	for i, s := range []string{claude.TypeUser, claude.TypeAssistant, claude.TypeSystem, claude.TypeAttachment, claude.TypeProgress, "(none)"} {
		if t.intern(s) != name(i+1) {
			panic("trim: name table out of order")
		}
	}
	return t
}

// intern returns the name of s (a view that need not outlive the call).
func (t *nameTab) intern(s string) name {
	if n, ok := t.idx[s]; ok {
		return n
	}
	s = t.arena.clone(s)
	n := name(len(t.list))
	t.list = append(t.list, s)
	t.idx[s] = n
	return n
}

func (t *nameTab) text(n name) string { return t.list[n] }

// tid is an interned tool_use id: 0 is "".
type tid int32

// toolTab interns tool_use ids; the plan pairs tool_use and tool_result
// blocks by them and never writes them, so only the numbers matter.
type toolTab struct {
	idx   map[string]tid
	arena arena
}

func (t *toolTab) intern(s string) tid {
	if s == "" {
		return 0
	}
	if id, ok := t.idx[s]; ok {
		return id
	}
	if t.idx == nil {
		t.idx = map[string]tid{}
	}
	id := tid(len(t.idx) + 1)
	t.idx[t.arena.clone(s)] = id
	return id
}

// len is one more than the largest tid.
func (t *toolTab) len() int { return len(t.idx) + 1 }

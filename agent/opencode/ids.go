package opencode

import (
	"encoding/hex"
	"math/rand/v2"
	"time"
)

// idSource makes ids as OpenCode's Identifier.create does
// (packages/opencode/src/id/id.ts): a prefix, "_", 12 hex digits of the
// low 48 bits of ms·0x1000 + a counter (bit-inverted for sessions, so a
// newer session sorts first), and 14 random base62 characters. The
// messages' and parts' ids are taken in order from one counter started
// at now, so they keep the original order, sort after every id made
// before now, and (Wait) before every id OpenCode makes afterwards.
type idSource struct {
	start, n uint64
	rand     func() uint64
}

func newIDSource(now time.Time) *idSource {
	return &idSource{start: uint64(now.UnixMilli()) * 0x1000, rand: rand.Uint64}
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func (s *idSource) make(prefix string, v uint64) string {
	var b [6]byte
	for i := range b {
		b[i] = byte(v >> (40 - 8*i))
	}
	out := make([]byte, 0, len(prefix)+1+12+14)
	out = append(out, prefix...)
	out = append(out, '_')
	out = hex.AppendEncode(out, b[:])
	for range 14 {
		out = append(out, base62[s.rand()%62])
	}
	return string(out)
}

// session is the new session's id (descending, as OpenCode's are).
func (s *idSource) session() string { return s.make("ses", ^(s.start + 1)) }

// next is the next ascending id of prefix (msg, prt).
func (s *idSource) next(prefix string) string {
	s.n++
	return s.make(prefix, s.start+s.n)
}

// Wait returns once the clock has passed the last id's millisecond: more
// than 4095 ids run ahead of the clock, and an id OpenCode makes later
// must sort after them.
func (s *idSource) Wait() {
	last := int64((s.start + s.n) / 0x1000)
	if d := time.Until(time.UnixMilli(last + 1)); d > 0 {
		time.Sleep(d)
	}
}

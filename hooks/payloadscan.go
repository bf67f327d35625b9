package hooks

import "bytes"

// MaxPayloadField is the largest top-level member of a hook payload that
// is kept. Larger ones (a PostToolUse's tool_response after reading a big
// file, its tool_input) are streamed past and dropped: the handler needs
// none of them, only the small fields around them.
const MaxPayloadField = 1 << 20

// payloadScanner follows a payload's top-level JSON object as bytes
// arrive, without holding more than the payload's small members. It
// tracks only structure (strings, escapes, nesting); the kept members are
// validated by ParsePayload afterwards.
type payloadScanner struct {
	maxField int
	rawMax   int

	started, done bool
	depth         int
	inStr, esc    bool
	member        []byte // the current top-level member, while it is small
	skipping      bool   // the current member is over maxField: dropped
	members       [][]byte
	dropped       int
	raw           []byte // the payload as read, while within rawMax
	rawOver       bool
}

func newPayloadScanner(rawMax int) *payloadScanner {
	return &payloadScanner{maxField: min(MaxPayloadField, rawMax), rawMax: rawMax}
}

// feed scans the next bytes of the payload.
func (s *payloadScanner) feed(b []byte) {
	if !s.rawOver {
		if len(s.raw)+len(b) > s.rawMax {
			s.rawOver, s.raw = true, nil
		} else {
			s.raw = append(s.raw, b...)
		}
	}
	for i := 0; i < len(b) && !s.done; i++ {
		c := b[i]
		if !s.started {
			switch c {
			case ' ', '\t', '\r', '\n':
			case '{':
				s.started, s.depth = true, 1
			default:
				s.done = true // not an object: ParsePayload says so
			}
			continue
		}
		if s.inStr {
			if !s.esc {
				// Take the run up to the next quote or backslash in
				// one step (IndexByte is vectorised; a 20 MiB value is
				// mostly such a run).
				j := stringRun(b[i:])
				if j < 0 {
					s.keepRun(b[i:])
					return
				}
				s.keepRun(b[i : i+j])
				i += j
				c = b[i]
			}
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
			}
			s.keep(c)
			continue
		}
		switch c {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 0 {
				s.endMember()
				s.done = true
				continue
			}
		case ',':
			if s.depth == 1 {
				s.endMember()
				continue
			}
		}
		s.keep(c)
	}
}

// stringRun is the index of the first quote or backslash in b, -1 if none.
func stringRun(b []byte) int {
	q := bytes.IndexByte(b, '"')
	end := q
	if q < 0 {
		end = len(b)
	}
	if bs := bytes.IndexByte(b[:end], '\\'); bs >= 0 {
		return bs
	}
	return q
}

// keepRun keeps a run of string bytes as keep would, byte by byte.
func (s *payloadScanner) keepRun(run []byte) {
	if s.skipping || len(run) == 0 {
		return
	}
	if room := s.maxField - len(s.member); len(run) > room {
		s.member = append(s.member, run[:room]...)
		s.keep(0) // over maxField: starts skipping
		return
	}
	s.member = append(s.member, run...)
}

func (s *payloadScanner) keep(c byte) {
	if s.skipping {
		return
	}
	if len(s.member) >= s.maxField {
		s.skipping, s.member = true, nil
		s.dropped++
		// payload rebuilds the object from its members now: the raw
		// copy would only cost memory and copies.
		s.rawOver, s.raw = true, nil
		return
	}
	s.member = append(s.member, c)
}

func (s *payloadScanner) endMember() {
	if !s.skipping && len(bytes.TrimSpace(s.member)) > 0 {
		s.members = append(s.members, s.member)
	}
	s.member, s.skipping = nil, false
}

// payload is what was read: the exact bytes when nothing was dropped,
// else an object of the kept members.
func (s *payloadScanner) payload() []byte {
	if !s.rawOver && s.dropped == 0 {
		return s.raw
	}
	out := []byte{'{'}
	out = append(out, bytes.Join(s.members, []byte{','})...)
	return append(out, '}')
}

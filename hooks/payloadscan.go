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
	// kept holds the kept top-level members back to back (one buffer,
	// not one per member: a statusLine payload has a dozen members, and
	// each grew its own slice on every render); ends[i] is where member
	// i ends, start where the current one starts.
	kept     []byte
	ends     []int
	start    int
	skipping bool // the current member is over maxField: dropped
	dropped  int
	raw      []byte // the payload as read, while within rawMax
	rawOver  bool
}

func newPayloadScanner(rawMax int) *payloadScanner {
	return &payloadScanner{maxField: min(MaxPayloadField, rawMax), rawMax: rawMax}
}

// feed scans the next bytes of the payload.
func (s *payloadScanner) feed(b []byte) {
	if s.kept == nil {
		s.kept = make([]byte, 0, min(len(b), s.maxField))
	}
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
	if room := s.maxField - (len(s.kept) - s.start); len(run) > room {
		s.kept = append(s.kept, run[:room]...)
		s.keep(0) // over maxField: starts skipping
		return
	}
	s.kept = append(s.kept, run...)
}

func (s *payloadScanner) keep(c byte) {
	if s.skipping {
		return
	}
	if len(s.kept)-s.start >= s.maxField {
		s.skipping, s.kept = true, s.kept[:s.start]
		s.dropped++
		// payload rebuilds the object from its members now: the raw
		// copy would only cost memory and copies.
		s.rawOver, s.raw = true, nil
		return
	}
	s.kept = append(s.kept, c)
}

func (s *payloadScanner) endMember() {
	if !s.skipping && len(bytes.TrimSpace(s.kept[s.start:])) > 0 {
		s.ends = append(s.ends, len(s.kept))
		s.start = len(s.kept)
	}
	s.kept, s.skipping = s.kept[:s.start], false
}

// payload is what was read: the exact bytes when nothing was dropped,
// else an object of the kept members.
func (s *payloadScanner) payload() []byte {
	if !s.rawOver && s.dropped == 0 {
		return s.raw
	}
	out := []byte{'{'}
	prev := 0
	for i, end := range s.ends {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, s.kept[prev:end]...)
		prev = end
	}
	return append(out, '}')
}

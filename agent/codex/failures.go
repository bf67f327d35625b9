package codex

import "bytes"

// resumeFailed starts the error Codex 0.171.0 prints on stderr, exit
// status 1, when `codex resume` or `codex exec resume` cannot load the
// thread; what follows says why.
const resumeFailed = "thread/resume failed: "

// loadReasons are the causes after resumeFailed that are the thread's own:
// no rollout for the id, or one Codex cannot read (empty, garbage, no
// session metadata: "failed to read thread: … rollout at PATH is empty").
var loadReasons = [][]byte{
	[]byte("no rollout found for thread id"),
	[]byte("failed to read thread"),
}

// LoadFailed reports whether what a resume printed on stderr holds Codex's
// own message for a thread it could not load. A usage error (exit 2), a
// missing terminal or an API error says something else.
func LoadFailed(stderr []byte) bool {
	for _, line := range bytes.Split(stderr, []byte("\n")) {
		_, rest, ok := bytes.Cut(line, []byte(resumeFailed))
		if !ok {
			continue
		}
		for _, r := range loadReasons {
			if bytes.HasPrefix(rest, r) {
				return true
			}
		}
	}
	return false
}

package wrap

import "strings"

// Harness names the wrapped program.
type Harness string

const (
	Claude Harness = "claude"
	Codex  Harness = "codex"
)

// Resume describes what an argument list asks to resume.
type Resume struct {
	// Kind is "" (a new session), "id", "continue" (Claude's latest in this
	// directory) or "last" (Codex's latest).
	Kind string
	ID   string
	Fork bool
	// Print is set for non-interactive runs (claude -p, codex exec).
	Print bool
	// fresh is the argument list with the resume arguments removed, for a
	// fallback start.
	fresh []string
	// at is the index of the argument holding ID (-1: none); eq marks the
	// --resume=ID spelling.
	at int
	eq bool
}

// Fresh returns the arguments for a new session in place of the resume.
func (r Resume) Fresh() []string { return r.fresh }

// ParseResume reads the resume arguments of a claude or codex command line
// without otherwise interpreting it: unknown flags pass through untouched.
func ParseResume(h Harness, args []string) Resume {
	if h == Codex {
		return parseCodex(args)
	}
	return parseClaude(args)
}

func parseClaude(args []string) Resume {
	r := Resume{at: -1}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		switch {
		case a == "-r" || a == "--resume":
			r.Kind = "id"
			// --resume without a value opens Claude's picker; only a value
			// that is not another flag is an id.
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				r.ID, r.at = args[i+1], i+1
				i++
			} else {
				r.Kind = "picker"
			}
			continue
		case strings.HasPrefix(a, "--resume="):
			r.Kind, r.ID, r.at, r.eq = "id", strings.TrimPrefix(a, "--resume="), i, true
			continue
		case a == "-c" || a == "--continue":
			r.Kind = "continue"
			continue
		case a == "--fork-session":
			r.Fork = true
			continue
		case a == "-p" || a == "--print":
			r.Print = true
		}
		out = append(out, a)
	}
	r.fresh = out
	return r
}

func parseCodex(args []string) Resume {
	r := Resume{at: -1}
	// codex [global flags] resume [ID|--last] [prompt…]
	// codex [global flags] exec [flags] resume [ID|--last] [prompt…]
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "exec" || a == "e" {
			r.Print = true
		}
		if a != "resume" || r.Kind != "" {
			out = append(out, a)
			continue
		}
		switch {
		case i+1 < len(args) && args[i+1] == "--last":
			r.Kind = "last"
			i++
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			r.Kind, r.ID, r.at = "id", args[i+1], i+1
			i++
		default:
			r.Kind = "picker"
		}
	}
	r.fresh = out
	return r
}

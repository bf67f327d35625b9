// Command gencorpus writes a synthetic Claude Code + Codex history for
// benchmarks: DIR/.claude/projects/…, DIR/.codex/sessions/… and
// DIR/.codex/state_5.sqlite, deterministic from -seed. scripts/bench.sh
// builds and runs it; it is not part of the tether binary. The state DB's
// schema is read from the checkout it was built from
// (testdata/codex-0.171.0/golden-state_5.schema.sql, the one copy).
//
//	gencorpus -dir DIR [-sessions 1000] [-projects 50] [-seed 1]
//	          [-max-size SIZE] [-huge] [-size SIZE] [-claude-only]
//
// Output (one line): claude=N codex=N bytes=N largest=N PATH-OF-LARGEST
// Point CLAUDE_CONFIG_DIR=DIR/.claude and CODEX_HOME=DIR/.codex at it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tether-dev/tether/internal/testkit/corpus"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	dir := fs.String("dir", "", "where to write (a HOME-like `DIR`; required)")
	sessions := fs.Int("sessions", 1000, "number of sessions")
	projects := fs.Int("projects", 50, "number of working directories")
	seed := fs.Uint64("seed", 1, "random seed")
	maxSize := fs.String("max-size", "", "cap one transcript at this `SIZE` (e.g. 64M, 1G; default 512M)")
	huge := fs.Bool("huge", false, "add a few transcripts over 1 GiB")
	size := fs.String("size", "", "make every transcript about this `SIZE` instead of drawing sizes")
	claudeOnly := fs.Bool("claude-only", false, "no Codex sessions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts := corpus.Options{Dir: *dir, Sessions: *sessions, Projects: *projects, Seed: *seed, Huge: *huge}
	var err error
	if opts.MaxSize, err = optSize(*maxSize); err != nil {
		return usage("-max-size: %v", err)
	}
	if opts.Size, err = optSize(*size); err != nil {
		return usage("-size: %v", err)
	}
	if *claudeOnly {
		opts.CodexShare = -1
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q", fs.Arg(0))
	case opts.Dir == "":
		return usage("-dir is required")
	case opts.Sessions <= 0 || opts.Projects <= 0:
		return usage("-sessions and -projects must be positive")
	}
	st, err := corpus.Generate(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gencorpus: %v\n", err)
		return 1
	}
	fmt.Printf("claude=%d codex=%d bytes=%d largest=%d %s\n", st.Claude, st.Codex, st.Bytes, st.Largest, st.LargestPath)
	return 0
}

func usage(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "gencorpus: "+format+"\n", a...)
	return 2
}

// optSize is parseSize for an optional flag: "" is 0.
func optSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return parseSize(s)
}

package hot

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/exitcode"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// Harness names as the catalog and the completion index spell them.
const (
	HarnessClaude = agent.Claude
	HarnessCodex  = agent.Codex
)

// indexMaxAge is how old the completion index may be before a TAB starts a
// background refresh (it still answers from the old one).
const indexMaxAge = 30 * time.Second

// RefreshLockMaxAge is how long a refresh may hold its lock before another
// TAB assumes it died and starts a new one.
const RefreshLockMaxAge = 2 * time.Minute

// completeLimit caps the session ids offered at once.
const completeLimit = 500

// NoOpinion makes the shell fall back to its own completion.
var NoOpinion = exitcode.Silent{Code: 1}

// CompleteOptions are the inputs of a completion.
type CompleteOptions struct {
	Out       io.Writer
	Shell     string
	Words     []string
	IndexPath string
	Root      string
	Now       time.Time
	// Refresh starts a background rebuild of the index.
	Refresh func()
}

// CompleteAgent completes the session id after `claude --resume`/`-r`,
// `codex resume` or `opencode -s`/`--session`. handled is false when the
// line is none of theirs (tether's own command line is cmd/tether's to complete).
func CompleteAgent(opts CompleteOptions) (handled bool, err error) { return agentCompletion(&opts) }

// agentCompletion is CompleteAgent.
func agentCompletion(opts *CompleteOptions) (handled bool, err error) {
	if len(opts.Words) == 0 {
		return true, NoOpinion
	}
	cur := opts.Words[len(opts.Words)-1]
	prev := ""
	if n := len(opts.Words); n > 1 {
		prev = opts.Words[n-2]
	}
	var harnesses []string
	valuePfx := ""
	switch filepath.Base(opts.Words[0]) {
	case "claude":
		// claude resumes only its own sessions.
		harnesses = []string{HarnessClaude}
		switch {
		case prev == "-r" || prev == "--resume":
		case strings.HasPrefix(cur, "--resume="):
			valuePfx, cur = "--resume=", strings.TrimPrefix(cur, "--resume=")
		default:
			return true, NoOpinion
		}
	case "codex":
		if prev != "resume" {
			return true, NoOpinion
		}
		harnesses = []string{HarnessCodex}
	case "opencode":
		harnesses = []string{agent.OpenCode}
		switch {
		case prev == "-s" || prev == "--session":
		case strings.HasPrefix(cur, "--session="):
			valuePfx, cur = "--session=", strings.TrimPrefix(cur, "--session=")
		default:
			return true, NoOpinion
		}
	default:
		return false, nil
	}
	return true, finishCompletion(opts, nil, harnesses, cur, valuePfx)
}

// FinishComplete adds the session ids of harnesses starting with cur to
// cands and prints them for the shell; valuePfx is the "--flag=" part of
// the word, which fish wants back.
func FinishComplete(opts CompleteOptions, cands []compindex.Candidate, harnesses []string, cur, valuePfx string) error {
	return finishCompletion(&opts, cands, harnesses, cur, valuePfx)
}

func finishCompletion(opts *CompleteOptions, cands []compindex.Candidate, harnesses []string, cur, valuePfx string) error {
	if len(cands) == 0 && harnesses != nil {
		return writeSessionCandidates(opts, harnesses, cur, valuePfx)
	}
	if harnesses != nil {
		cands = append(cands, sessionCandidates(opts, harnesses, cur)...)
	}
	if valuePfx != "" && opts.Shell == "fish" {
		// fish completes the whole token; bash and zsh the part after '='.
		for i := range cands {
			cands[i].Value = valuePfx + cands[i].Value
		}
	}
	return compindex.FormatCandidates(opts.Out, opts.Shell, cands)
}

func sessionCandidates(opts *CompleteOptions, harnesses []string, prefix string) []compindex.Candidate {
	if !indexReady(opts) {
		return nil
	}
	// Only the entries that can be offered are decoded: the mapped index
	// is filtered by id prefix and at most completeLimit per group.
	cands, err := compindex.MapSessionCandidates(opts.IndexPath, *sessionQuery(opts, harnesses, prefix))
	if err != nil {
		return nil
	}
	return cands
}

// writeSessionCandidates is FinishComplete with only session ids to
// offer (every TAB after claude --resume or codex resume): their lines
// are formatted straight from the mapped index into one buffer, written
// at once. An index that cannot be read offers nothing.
func writeSessionCandidates(opts *CompleteOptions, harnesses []string, prefix, valuePfx string) error {
	if !indexReady(opts) {
		return nil
	}
	if opts.Shell != "fish" {
		// fish completes the whole token; bash and zsh the part after '='.
		valuePfx = ""
	}
	// Room for a full answer (~100 bytes a line): one allocation, whose
	// pages are touched only as far as the lines go.
	b, err := compindex.AppendSessionCandidates(make([]byte, 0, completeLimit*128), opts.Shell, opts.IndexPath,
		sessionQuery(opts, harnesses, prefix), valuePfx)
	if err != nil || len(b) == 0 {
		return nil
	}
	_, err = opts.Out.Write(b)
	return err
}

// indexReady reports whether the completion index exists, starting a
// background refresh when it is missing or old.
func indexReady(opts *CompleteOptions) bool {
	st, statErr := os.Stat(opts.IndexPath)
	if (statErr != nil || opts.Now.Sub(st.ModTime()) > indexMaxAge) && opts.Refresh != nil {
		opts.Refresh()
	}
	return statErr == nil
}

func sessionQuery(opts *CompleteOptions, harnesses []string, prefix string) *compindex.SessionQuery {
	return &compindex.SessionQuery{Harnesses: harnesses, Root: opts.Root, Prefix: prefix, Now: opts.Now, Limit: completeLimit}
}

// SplitLine splits a command line as the shell would for completion: on
// blanks outside quotes, with quotes removed. A line ending in a blank has
// an empty last word (the one being completed).
func SplitLine(line string) []string {
	var (
		words []string
		cur   strings.Builder
		quote rune
		in    bool
		esc   bool
	)
	for _, r := range line {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	return append(words, cur.String())
}

// SpawnIndexRefresh starts `TETHER complete --refresh-index` (tether is
// the full binary: the refresh reads the catalog) in its own session with
// no terminal, and does not wait for it. A lock file keeps TABs pressed
// while it runs from starting more.
func SpawnIndexRefresh(cacheDir string, now time.Time, tether string) {
	lock := compindex.Path(cacheDir) + ".lock"
	if st, err := os.Stat(lock); err == nil && now.Sub(st.ModTime()) < RefreshLockMaxAge {
		return
	}
	c := exec.Command(tether, "complete", "--refresh-index")
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if c.Start() == nil {
		c.Process.Release()
	}
}

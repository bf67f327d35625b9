// Package corpus writes a synthetic, deterministic Claude Code + Codex
// history for benchmarks: the record shapes of the real CLIs (see the
// golden-* captures under testdata/), long-tailed transcript sizes,
// symlinked and punctuated working directories, and a Codex state_5.sqlite. Nothing in it is real
// user data: prompts and tool output are generated filler.
package corpus

import (
	"bufio"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent/claude"
	"github.com/tether-dev/tether/internal/testkit/testutil"

	_ "modernc.org/sqlite" // pure-Go SQLite, as the catalog reads it
)

// stateSchemaFile is Codex 0.171.0's state_5.sqlite schema as the e2e
// suite dumps it from the real CLI in creation order (scripts/golden.sh
// rewrites it), relative to the module root. It is the one copy: the
// corpus and the catalog's tests replay it, the e2e suite checks the real
// CLI still creates it.
const stateSchemaFile = "testdata/codex-0.171.0/golden-state_5.schema.sql"

// StateDDL is the schema of stateSchemaFile without the table SQLite
// creates by itself (sqlite_sequence, part of the dump, cannot be created
// by hand), ready to build a test database.
func StateDDL() (string, error) {
	root, err := testutil.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("codex state schema: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(stateSchemaFile)))
	if err != nil {
		return "", fmt.Errorf("codex state schema: %w", err)
	}
	return strings.Replace(string(b), "CREATE TABLE sqlite_sequence(name,seq);", "", 1), nil
}

// Options says what to generate.
type Options struct {
	Dir      string // HOME-like root: Dir/.claude, Dir/.codex, Dir/src
	Sessions int    // total sessions (Claude Code and Codex)
	Projects int    // distinct working directories
	Seed     uint64
	// MaxSize caps one transcript's size in bytes (0: 512 MiB, or 2 GiB
	// with Huge).
	MaxSize int64
	// Huge adds a few transcripts over 1 GiB (still capped by MaxSize).
	Huge bool
	// CodexShare is the fraction of sessions that are Codex's (default
	// 0.15; negative: none).
	CodexShare float64
	// Size, when set, makes every transcript about this size instead of
	// drawing sizes (e.g. one 50 MiB transcript for the hook benchmark).
	Size int64
}

// Stats is what Generate wrote.
type Stats struct {
	Claude, Codex int
	Bytes         int64
	Largest       int64
	LargestPath   string
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Generate writes the corpus. The same Options give the same bytes.
func Generate(o Options) (Stats, error) {
	if o.Sessions <= 0 || o.Projects <= 0 {
		return Stats{}, fmt.Errorf("sessions and projects must be positive")
	}
	if o.MaxSize <= 0 {
		o.MaxSize = max(512*mib, o.Size)
		if o.Huge {
			o.MaxSize = 2 * gib
		}
	}
	if o.CodexShare == 0 {
		o.CodexShare = 0.15
	}
	g := &gen{o: o, rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	if err := g.projects(); err != nil {
		return Stats{}, err
	}
	sizes := g.sizes()
	var codexRows []codexThread
	for i := range o.Sessions {
		p := g.cwds[g.rng.IntN(len(g.cwds))]
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(g.rng.Int64N(int64(90 * 24 * time.Hour))))
		if g.rng.Float64() < o.CodexShare {
			t, n, err := g.codexSession(i, p, start, sizes[i])
			if err != nil {
				return g.st, err
			}
			codexRows = append(codexRows, t)
			g.note(n, t.RolloutPath)
			g.st.Codex++
			continue
		}
		path, n, err := g.claudeSession(i, p, start, sizes[i])
		if err != nil {
			return g.st, err
		}
		g.note(n, path)
		g.st.Claude++
	}
	if err := g.stateDB(codexRows); err != nil {
		return g.st, err
	}
	return g.st, nil
}

type project struct {
	physical string // what Claude Code records
	logical  string // the spelling a user typed (a symlink, a trailing slash); may equal physical
}

type gen struct {
	o    Options
	rng  *rand.Rand
	cwds []project
	st   Stats
}

func (g *gen) note(n int64, path string) {
	g.st.Bytes += n
	if n > g.st.Largest {
		g.st.Largest, g.st.LargestPath = n, path
	}
}

// projectNames are the shapes of directory names seen in the wild:
// punctuation, spaces, non-ASCII, dots and one name long enough that
// Claude Code 2.1 hashes its project directory name.
var projectNames = []string{
	"project-%d", "my app %d (copy)", "api.v%d_beta", "café-%d", "[wip] tools %d", "dots.and-dashes_%d",
	"space  twice %d", "it's-%d", "100%%-done-%d", "naïve résumé %d",
}

func (g *gen) projects() error {
	src := filepath.Join(g.o.Dir, "src")
	links := filepath.Join(g.o.Dir, "links")
	for _, d := range []string{src, links} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for j := range g.o.Projects {
		name := fmt.Sprintf(projectNames[j%len(projectNames)], j)
		if j == 7 {
			name = strings.Repeat("very-long-directory-name-", 9) + strconv.Itoa(j)
		}
		phys := filepath.Join(src, name)
		if err := os.MkdirAll(phys, 0o755); err != nil {
			return err
		}
		p := project{physical: phys, logical: phys}
		switch j % 5 {
		case 1: // reached through a symlink
			p.logical = filepath.Join(links, name)
			if err := os.Symlink(phys, p.logical); err != nil && !os.IsExist(err) {
				return err
			}
		case 3: // typed with a trailing slash
			p.logical = phys + "/"
		}
		g.cwds = append(g.cwds, p)
	}
	return nil
}

// sizes draws every session's target size: most 50 KiB–2 MiB
// (log-normal around 200 KiB), one in 500 (at least one when there are
// 200 or more sessions) 50–500 MiB, and with Huge one or two over 1 GiB.
func (g *gen) sizes() []int64 {
	n := g.o.Sessions
	out := make([]int64, n)
	for i := range out {
		v := math.Exp(math.Log(200*kib) + 0.9*g.rng.NormFloat64())
		out[i] = int64(min(max(v, 50*kib), 2*mib))
	}
	large := n / 500
	if large == 0 && n >= 200 {
		large = 1
	}
	for range large {
		v := math.Exp(math.Log(50*mib) + g.rng.Float64()*math.Log(10))
		out[g.rng.IntN(n)] = int64(v)
	}
	if g.o.Huge {
		for k := range min(2, n) {
			out[g.rng.IntN(n)] = gib + int64(k)*gib/4 + int64(g.rng.IntN(64*mib))
		}
	}
	for i := range out {
		if g.o.Size > 0 {
			out[i] = g.o.Size
		}
		out[i] = min(out[i], g.o.MaxSize)
	}
	return out
}

func (g *gen) uuid() string {
	a, b := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

// filler is deterministic code-like text, JSON-escaped, built from
// 8-byte tokens so any slice at a multiple of 8 is valid JSON string
// content (never a cut escape). Built on first use: tether links this
// package, and 4 MiB at init would cost every tether process tens of
// milliseconds.
var filler = sync.OnceValue(func() string {
	toks := []string{"func    ", "return\\n", "  if err", " != nil ", "{\\n\\t\\t ", "value :=", " x.Get(k", ")\\n     ",
		"// note ", "for i :=", " range s", "\\tpath/t", "o/file.g", "o:42:   ", "ok      ", "PASS\\n  "}
	for _, t := range toks {
		if len(t) != 8 {
			panic("corpus: filler token " + strconv.Quote(t) + " is not 8 bytes")
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 4*mib {
		b.WriteString(toks[r.IntN(len(toks))])
	}
	return b.String()
})

func (g *gen) text(n int) string {
	f := filler()
	n = max(8, min(n, len(f)-8)) &^ 7
	off := g.rng.IntN((len(f)-n)/8) * 8
	return f[off : off+n]
}

// writer counts bytes and keeps the last error.
type writer struct {
	f   *os.File
	w   *bufio.Writer
	n   int64
	err error
}

func create(path string) (*writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &writer{f: f, w: bufio.NewWriterSize(f, 1*mib)}, nil
}

func (w *writer) line(parts ...string) {
	if w.err != nil {
		return
	}
	for _, p := range parts {
		k, err := w.w.WriteString(p)
		w.n += int64(k)
		if err != nil {
			w.err = err
			return
		}
	}
	if err := w.w.WriteByte('\n'); err != nil {
		w.err = err
	}
	w.n++
}

func (w *writer) close(mtime time.Time) error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if err := w.f.Close(); w.err == nil {
		w.err = err
	}
	if w.err == nil {
		w.err = os.Chtimes(w.f.Name(), mtime, mtime)
	}
	return w.err
}

func q(s string) string { return strconv.Quote(s) } // ASCII-safe JSON for our strings

func jstr(s string) string {
	// strconv.Quote escapes non-ASCII as \u or \x: JSON has no \x, so
	// build the string by hand for paths with non-ASCII characters.
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func ts(t time.Time) string { return q(t.UTC().Format("2006-01-02T15:04:05.000Z")) }

var prompts = []string{
	"fix the failing test in the parser", "add a --json flag to the list command", "why is the build slow",
	"refactor the config loader INIT-AB-%03d", "write docs for the cache", "review this diff for bugs",
	"make the hook fail open", "bump the dependency and run the tests", "explain this stack trace", "port the script to Go",
}

// claudeSession writes one Claude Code transcript of about size bytes.
func (g *gen) claudeSession(i int, p project, start time.Time, size int64) (string, int64, error) {
	id := g.uuid()
	v2 := g.rng.IntN(5) != 0 // 2.1.x; else 2.0.x
	version := "2.1.332"
	if !v2 {
		version = "2.0.77"
	}
	cwd := p.physical
	name, _ := claude.ProjectDirName(cwd)
	path := filepath.Join(g.o.Dir, ".claude", "projects", name, id+".jsonl")
	w, err := create(path)
	if err != nil {
		return path, 0, err
	}
	model := []string{"claude-opus-5-5", "claude-sonnet-4-5", "claude-opus-5-5[1m]"}[g.rng.IntN(3)]
	branch := []string{"main", "HEAD", "feature/cache", "fix-" + strconv.Itoa(i%97)}[g.rng.IntN(4)]
	now := start
	tick := func() string { now = now.Add(time.Duration(1+g.rng.IntN(20)) * time.Second); return ts(now) }
	env := `,"userType":"external","entrypoint":"cli","cwd":` + jstr(cwd) + `,"sessionId":"` + id + `","version":"` + version + `","gitBranch":` + q(branch)
	parent := "null"
	uid := func() string { return g.uuid() }
	rec := func(typ, body string, extra string) string {
		u := uid()
		s := `{"parentUuid":` + parent + `,"isSidechain":false` + body + `,"type":"` + typ + `","uuid":"` + u + `","timestamp":` + tick() + env + extra + `}`
		parent = `"` + u + `"`
		return s
	}
	prompt := func(turn int) string {
		s := prompts[g.rng.IntN(len(prompts))]
		if strings.Contains(s, "%") {
			s = fmt.Sprintf(s, turn%1000)
		}
		return s
	}
	promptSrc := ""
	if v2 {
		promptSrc = `,"promptSource":"typed"`
		w.line(`{"type":"queue-operation","operation":"enqueue","timestamp":`, ts(now), `,"sessionId":"`, id, `"}`)
	}
	w.line(`{"type":"file-history-snapshot","messageId":"`, uid(), `","snapshot":{"trackedFileBackups":{},"timestamp":`, ts(now), `},"isSnapshotUpdate":false}`)
	first := prompt(0)
	w.line(rec("user", `,"message":{"role":"user","content":`+q(first)+`}`, promptSrc))
	if v2 {
		// 2.1 snapshots the system prompt and tool schemas near the start.
		for range 3 {
			w.line(rec("attachment", `,"attachment":{"type":"prompt_snapshot","systemPrompt":["`+g.text(6*kib)+`"]}`, ""))
		}
	}
	compactEvery := int64(0)
	if size > 4*mib || g.rng.IntN(8) == 0 {
		compactEvery = max(size/3, 1*mib)
	}
	nextCompact := compactEvery
	tokens := 20000
	lastPrompt := first
	for turn := 0; w.n < size && w.err == nil; turn++ {
		if turn > 0 {
			lastPrompt = prompt(turn)
			w.line(rec("user", `,"message":{"role":"user","content":`+q(lastPrompt)+`}`, promptSrc))
		}
		msg := "msg_" + strconv.Itoa(turn) + "_" + id[:8]
		usage := func() string {
			tokens += 500 + g.rng.IntN(4000)
			return `"usage":{"input_tokens":` + strconv.Itoa(3+g.rng.IntN(50)) + `,"cache_creation_input_tokens":` + strconv.Itoa(g.rng.IntN(3000)) +
				`,"cache_read_input_tokens":` + strconv.Itoa(tokens) + `,"output_tokens":` + strconv.Itoa(10+g.rng.IntN(900)) + `}`
		}
		asst := func(block string) {
			w.line(rec("assistant", `,"message":{"id":"`+msg+`","type":"message","role":"assistant","model":"`+model+`","content":[`+block+`],"stop_reason":null,`+usage()+`}`, `,"requestId":"req_`+id[:8]+`"`))
		}
		// One content block per assistant record, sharing the message id.
		asst(`{"type":"thinking","thinking":"` + g.text(200+g.rng.IntN(2000)) + `","signature":"` + g.text(400) + `"}`)
		asst(`{"type":"text","text":"` + g.text(100+g.rng.IntN(600)) + `"}`)
		for range 1 + g.rng.IntN(4) {
			tid := "toolu_" + g.uuid()[:18]
			tool, input := "Bash", `{"command":"go test ./...","description":"Run the tests"}`
			if g.rng.IntN(2) == 0 {
				tool, input = "Read", `{"file_path":`+jstr(cwd+"/internal/file"+strconv.Itoa(g.rng.IntN(40))+".go")+`}`
			}
			asst(`{"type":"tool_use","id":"` + tid + `","name":"` + tool + `","input":` + input + `}`)
			// Tool output is most of a transcript's bytes: the result is
			// recorded twice, in the message and in toolUseResult.
			n := 512 + int(math.Exp(g.rng.Float64()*math.Log(48*kib)))
			if size > 64*mib && g.rng.IntN(200) == 0 {
				n = 2*mib + g.rng.IntN(3*mib) // the occasional huge record
			}
			out := g.text(n)
			w.line(rec("user", `,"message":{"role":"user","content":[{"tool_use_id":"`+tid+`","type":"tool_result","content":"`+out+`","is_error":false}]}`,
				`,"toolUseResult":{"stdout":"`+out+`","stderr":"","interrupted":false,"isImage":false}`))
		}
		asst(`{"type":"text","text":"` + g.text(100+g.rng.IntN(1500)) + `"}`)
		if g.rng.IntN(6) == 0 {
			// A subagent's records in the main file (2.0.x) are sidechains.
			side := parent
			for range 2 {
				u := uid()
				w.line(`{"parentUuid":`, side, `,"isSidechain":true,"agentId":"`, id[:8], `","type":"user","message":{"role":"user","content":"`, g.text(300), `"},"uuid":"`, u, `","timestamp":`, tick(), env, `}`)
				side = `"` + u + `"`
			}
		}
		if g.rng.IntN(4) == 0 {
			// file-history-snapshot bulk: backups of every tracked file.
			var b strings.Builder
			for k := range 5 + g.rng.IntN(30) {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(jstr(cwd + "/internal/file" + strconv.Itoa(k) + ".go"))
				b.WriteString(`:{"backupFileName":"` + g.uuid()[:16] + `@v2","version":2,"backupTime":` + ts(now) + `}`)
			}
			w.line(`{"type":"file-history-snapshot","messageId":"`, uid(), `","snapshot":{"trackedFileBackups":{`, b.String(), `},"timestamp":`, ts(now), `},"isSnapshotUpdate":true}`)
		}
		if v2 {
			w.line(`{"type":"last-prompt","lastPrompt":`, q(lastPrompt), `,"leafUuid":`, parent, `,"sessionId":"`, id, `"}`)
		}
		// Claude Code compacts automatically near the window's end; big
		// files are also compacted every third of their size.
		if (compactEvery > 0 && w.n >= nextCompact) || tokens > 160000 {
			if compactEvery > 0 && w.n >= nextCompact {
				nextCompact += compactEvery
			}
			logical := parent
			parent = "null"
			w.line(rec("system", `,"subtype":"compact_boundary","content":"Conversation compacted","level":"info","logicalParentUuid":`+logical+`,"compactMetadata":{"trigger":"auto","preTokens":`+strconv.Itoa(tokens)+`}`, ""))
			w.line(rec("user", `,"message":{"role":"user","content":"This session is being continued from a previous conversation. `+g.text(2*kib)+`"}`, `,"isCompactSummary":true,"isVisibleInTranscriptOnly":true`))
			tokens = 20000
		}
	}
	switch r := g.rng.IntN(10); {
	case r < 2:
		w.line(`{"type":"custom-title","customTitle":`, q("session "+strconv.Itoa(i)+": "+first), `,"sessionId":"`, id, `"}`)
	case r < 6 && v2:
		w.line(`{"type":"ai-title","aiTitle":`, q("Work on "+first), `,"sessionId":"`, id, `"}`)
	case !v2:
		w.line(`{"type":"summary","summary":`, q("Summary: "+first), `,"leafUuid":`, parent, `}`)
	}
	return path, w.n, w.close(now)
}

// codexThread is one row of the threads table.
type codexThread struct {
	ID, RolloutPath, Cwd, Source, Title, FirstUser, Model string
	Created, Updated                                      time.Time
	Tokens                                                int64
	Archived                                              bool
}

// codexSession writes one Codex rollout of about size bytes.
func (g *gen) codexSession(i int, p project, start time.Time, size int64) (codexThread, int64, error) {
	id := g.uuid()
	t := codexThread{ID: id, Cwd: p.logical, Source: []string{"cli", "exec", "vscode"}[g.rng.IntN(3)], Model: "gpt-5.5-codex", Created: start}
	local := start.Format("2006-01-02T15-04-05")
	t.RolloutPath = filepath.Join(g.o.Dir, ".codex", "sessions", start.Format("2006"), start.Format("01"), start.Format("02"), "rollout-"+local+"-"+id+".jsonl")
	w, err := create(t.RolloutPath)
	if err != nil {
		return t, 0, err
	}
	now := start
	tick := func() string { now = now.Add(time.Duration(1+g.rng.IntN(20)) * time.Second); return ts(now) }
	ord := 0
	rec := func(typ, payload string) {
		w.line(`{"timestamp":`, tick(), `,"ordinal":`, strconv.Itoa(ord), `,"type":"`, typ, `","payload":`, payload, `}`)
		ord++
	}
	rec("session_meta", `{"id":"`+id+`","session_id":"`+id+`","timestamp":`+ts(start)+`,"cwd":`+jstr(t.Cwd)+`,"originator":"codex_cli_rs","cli_version":"0.171.0","source":"`+t.Source+`","model_provider":"openai","git":{"branch":"main","commit_hash":"`+g.uuid()[:8]+`"}}`)
	rec("response_item", `{"type":"message","role":"developer","content":[{"type":"input_text","text":"`+g.text(8*kib)+`"}]}`)
	var tokens int64 = 12000
	for turn := 0; w.n < size && w.err == nil; turn++ {
		pr := prompts[g.rng.IntN(len(prompts))]
		if strings.Contains(pr, "%") {
			pr = fmt.Sprintf(pr, turn%1000)
		}
		if turn == 0 {
			t.FirstUser = pr
		}
		rec("turn_context", `{"turn_id":"`+g.uuid()+`","cwd":`+jstr(t.Cwd)+`,"approval_policy":"on-request","model":"`+t.Model+`"}`)
		rec("response_item", `{"type":"message","role":"user","content":[{"type":"input_text","text":`+q(pr)+`}]}`)
		rec("event_msg", `{"type":"user_message","message":`+q(pr)+`,"images":[]}`)
		for range 1 + g.rng.IntN(3) {
			call := "call_" + g.uuid()[:12]
			rec("response_item", `{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"`+call+`"}`)
			rec("response_item", `{"type":"function_call_output","call_id":"`+call+`","output":"`+g.text(512+int(math.Exp(g.rng.Float64()*math.Log(64*kib))))+`"}`)
		}
		rec("response_item", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`+g.text(200+g.rng.IntN(1500))+`"}]}`)
		tokens += int64(800 + g.rng.IntN(6000))
		u := `{"input_tokens":` + strconv.FormatInt(tokens, 10) + `,"cached_input_tokens":` + strconv.FormatInt(tokens*9/10, 10) + `,"output_tokens":300,"reasoning_output_tokens":0,"total_tokens":` + strconv.FormatInt(tokens+300, 10) + `}`
		rec("event_msg", `{"type":"token_count","info":{"total_token_usage":`+u+`,"last_token_usage":`+u+`,"model_context_window":258400}}`)
	}
	t.Updated, t.Tokens = now, tokens
	t.Title = t.FirstUser
	t.Archived = g.rng.IntN(20) == 0
	return t, w.n, w.close(now)
}

// stateDB writes Codex's state_5.sqlite with the real schema and one
// threads row per rollout.
func (g *gen) stateDB(rows []codexThread) error {
	dir := filepath.Join(g.o.Dir, ".codex")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, "state_5.sqlite")
	_ = os.Remove(path)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	schema, err := StateDDL()
	if err != nil {
		return err
	}
	if _, err := db.Exec(schema); err != nil {
		return fmt.Errorf("state schema: %w", err)
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	st, err := tx.Prepare(`INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title,
		sandbox_policy, approval_mode, tokens_used, has_user_event, archived, git_branch, cli_version, first_user_message, model)
		VALUES (?, ?, ?, ?, ?, 'openai', ?, ?, 'workspace-write', 'on-request', ?, 1, ?, 'main', '0.171.0', ?, ?)`)
	if err != nil {
		tx.Rollback()
		return err
	}
	for _, r := range rows {
		arc := 0
		if r.Archived {
			arc = 1
		}
		if _, err := st.Exec(r.ID, r.RolloutPath, r.Created.Unix(), r.Updated.Unix(), r.Source, r.Cwd, r.Title, r.Tokens, arc, r.FirstUser, r.Model); err != nil {
			tx.Rollback()
			return fmt.Errorf("insert thread: %w", err)
		}
	}
	return tx.Commit()
}

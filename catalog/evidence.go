package catalog

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/identity"
)

// WorkRule is a named regular expression for work references (ticket ids).
type WorkRule struct {
	Name    string
	Pattern *regexp.Regexp
}

// DefaultWorkRules are used when the config names none.
func DefaultWorkRules() []WorkRule {
	return []WorkRule{
		{Name: "INIT", Pattern: regexp.MustCompile(`\bINIT-[A-Z0-9]+-\d{3}\b`)},
		{Name: "RMI", Pattern: regexp.MustCompile(`\bRMI-[A-Z0-9]+-\d{3}\b`)},
	}
}

// GitTimeout bounds all `git cat-file` checks of one show.
var GitTimeout = 3 * time.Second

var (
	commitLine = regexp.MustCompile(`\[([^\]\s]+)(?: \([^)\n]*\))? ([0-9a-f]{7,40})\] ([^\n]*)`)
	hexToken   = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	cdPrefix   = regexp.MustCompile(`^\s*cd\s+("[^"]+"|'[^']+'|\S+)\s*(&&|;)`)
	patchFile  = regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add|Delete) File: (.+)$`)
)

// evidenceCollector accumulates evidence during a full read.
type evidenceCollector struct {
	rules    []WorkRule
	read     map[string]bool
	modified map[string]bool
	dirs     map[string]bool
	commits  []Commit
	pending  map[string]bool // tool call ids of git commit commands
	hexes    map[string]bool
	texts    []string // prompts, for work references
}

func newEvidenceCollector(rules []WorkRule) *evidenceCollector {
	if rules == nil {
		rules = DefaultWorkRules()
	}
	return &evidenceCollector{
		rules: rules, read: map[string]bool{}, modified: map[string]bool{}, dirs: map[string]bool{},
		pending: map[string]bool{}, hexes: map[string]bool{},
	}
}

func absIn(cwd, p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "file://") {
		p = strings.TrimPrefix(p, "file://")
	}
	if !filepath.IsAbs(p) && cwd != "" {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// toolUse records a tool call (Claude Code names and inputs, plus Codex's
// exec_command/shell/apply_patch).
func (e *evidenceCollector) toolUse(id, name string, input gjson.Result, cwd string) {
	switch name {
	case "Read", "NotebookRead":
		if p := absIn(cwd, input.Get("file_path").String()); p != "" {
			e.read[p] = true
		}
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		p := input.Get("file_path").String()
		if p == "" {
			p = input.Get("notebook_path").String()
		}
		if p = absIn(cwd, p); p != "" {
			e.modified[p] = true
		}
	case "Bash", "exec_command", "shell", "local_shell":
		cmd := input.Get("command").String()
		if cmd == "" {
			cmd = input.Get("cmd").String()
		}
		if a := input.Get("command"); a.IsArray() {
			var parts []string
			a.ForEach(func(_, v gjson.Result) bool { parts = append(parts, v.String()); return true })
			cmd = strings.Join(parts, " ")
		}
		if wd := input.Get("workdir").String(); wd != "" {
			e.dirs[absIn(cwd, wd)] = true
		}
		if m := cdPrefix.FindStringSubmatch(cmd); m != nil {
			e.dirs[absIn(cwd, strings.Trim(m[1], `"'`))] = true
		}
		if strings.Contains(cmd, "git commit") || strings.Contains(cmd, "git -c") && strings.Contains(cmd, " commit") {
			e.pending[id] = true
		}
		if strings.Contains(cmd, "*** Begin Patch") {
			e.patch(cmd, cwd)
		}
	case "apply_patch":
		e.patch(input.Get("input").String()+input.String(), cwd)
	}
}

func (e *evidenceCollector) patch(text, cwd string) {
	for _, m := range patchFile.FindAllStringSubmatch(text, -1) {
		e.modified[absIn(cwd, strings.TrimSpace(m[1]))] = true
	}
}

// toolResult looks for "[branch sha] subject" after a git commit call.
func (e *evidenceCollector) toolResult(id, text string) {
	if !e.pending[id] {
		return
	}
	delete(e.pending, id)
	if m := commitLine.FindStringSubmatch(text); m != nil {
		e.commits = append(e.commits, Commit{SHA: m[2], Branch: m[1], Subject: strings.TrimSpace(m[3])})
	}
}

func (e *evidenceCollector) prompt(text string) {
	e.texts = append(e.texts, text)
	for _, h := range hexToken.FindAllString(text, 50) {
		if len(e.hexes) < 50 {
			e.hexes[h] = true
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// finish resolves repositories, validates referenced commits (bounded by
// GitTimeout) and applies the work-reference rules.
func (e *evidenceCollector) finish(ctx context.Context, s Session) *Evidence {
	ev := &Evidence{
		FilesRead: sortedKeys(e.read), FilesModified: sortedKeys(e.modified),
		CommitsCreated: e.commits, CommitsReferenced: []string{}, WorkRefs: []WorkRef{}, Repos: []Repo{},
	}
	if ev.CommitsCreated == nil {
		ev.CommitsCreated = []Commit{}
	}
	// Repositories: the cwd, every file's directory, every command dir.
	cands := map[string]bool{s.Cwd: true}
	for p := range e.read {
		cands[filepath.Dir(p)] = true
	}
	for p := range e.modified {
		cands[filepath.Dir(p)] = true
	}
	for d := range e.dirs {
		cands[d] = true
	}
	roots := map[string]bool{}
	for _, d := range sortedKeys(cands) {
		if r := repoRoot(d); r != "" {
			roots[r] = true
		}
	}
	for _, r := range sortedKeys(roots) {
		ev.Repos = append(ev.Repos, Repo{Root: r, ID: originID(r)})
	}
	created := map[string]bool{}
	for _, c := range e.commits {
		created[c.SHA] = true
	}
	if len(e.hexes) > 0 && len(ev.Repos) > 0 {
		tctx, cancel := context.WithTimeout(ctx, GitTimeout)
		for _, h := range sortedKeys(e.hexes) {
			if created[h] {
				continue
			}
			for _, r := range ev.Repos {
				if gitHasCommit(tctx, r.Root, h) {
					ev.CommitsReferenced = append(ev.CommitsReferenced, h)
					break
				}
			}
		}
		cancel()
	}
	// Work references over prompts, branch, commit subjects and paths.
	texts := append([]string{s.GitBranch}, e.texts...)
	for _, c := range e.commits {
		texts = append(texts, c.Subject, c.Branch)
	}
	texts = append(texts, ev.FilesRead...)
	texts = append(texts, ev.FilesModified...)
	seen := map[string]bool{}
	for _, rule := range e.rules {
		for _, t := range texts {
			for _, m := range rule.Pattern.FindAllString(t, -1) {
				if k := rule.Name + "\x00" + m; !seen[k] {
					seen[k] = true
					ev.WorkRefs = append(ev.WorkRefs, WorkRef{Rule: rule.Name, Ref: m})
				}
			}
		}
	}
	return ev
}

// repoRoot walks up from dir to the directory holding .git ("" if none).
func repoRoot(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// gitDir returns the directory holding the repository's config, following
// a worktree's ".git" file and its commondir.
func gitDir(root string) string {
	g := filepath.Join(root, ".git")
	fi, err := os.Stat(g)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return g
	}
	data, err := os.ReadFile(g)
	if err != nil {
		return ""
	}
	d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	d = absIn(root, strings.TrimSpace(d))
	if c, err := os.ReadFile(filepath.Join(d, "commondir")); err == nil {
		d = absIn(d, strings.TrimSpace(string(c)))
	}
	return d
}

// originID reads the origin remote from the repository config and returns
// it as host/owner/name.
func originID(root string) string {
	d := gitDir(root)
	if d == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(d, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			in = l == `[remote "origin"]`
			continue
		}
		if in {
			if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "url" {
				return RemoteID(strings.TrimSpace(v))
			}
		}
	}
	return ""
}

// RemoteID turns a git remote URL into host/owner/name:
// git@github.com:org/repo.git and https://github.com/org/repo both give
// github.com/org/repo. A local path is returned cleaned.
func RemoteID(url string) string {
	u := strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if at := strings.IndexByte(u, '@'); at >= 0 && at < strings.IndexByte(u+"/", '/') {
			u = u[at+1:]
		}
		host, path, _ := strings.Cut(u, "/")
		if h, _, ok := strings.Cut(host, ":"); ok {
			host = h
		}
		if host == "" {
			return filepath.Clean("/" + path)
		}
		return host + "/" + path
	}
	if at := strings.IndexByte(u, '@'); at >= 0 {
		u = u[at+1:]
	}
	if host, path, ok := strings.Cut(u, ":"); ok && !strings.Contains(host, "/") {
		return host + "/" + strings.TrimPrefix(path, "/")
	}
	return u
}

func gitHasCommit(ctx context.Context, repo, sha string) bool {
	if ctx.Err() != nil {
		return false
	}
	cmd := exec.CommandContext(ctx, "git", "-C", repo, "cat-file", "-e", sha+"^{commit}")
	return cmd.Run() == nil
}

// rootMemo resolves each distinct cwd to its identity root and its
// repository's origin id once per listing. A Catalog's listing shares one
// between its readers (shared), so a directory both agents worked in is
// resolved once. The repository lookup is memoised per directory walked,
// so cwds under one parent stat that parent's ".git" once, not once each
// (a warm list of 10,000 sessions spent ~15 ms of CPU in those stats),
// and the origin is read only for the readers that show it.
type rootMemo struct {
	shared *rootMemo

	// mu is read-locked for lookups: the readers' workers look up every
	// session's cwd, and with a plain mutex they spun on each other
	// (~5 ms of a warm list at 10,000 sessions).
	mu      sync.RWMutex
	roots   map[string]string // cwd → identity root
	repos   map[string]string // directory → repository root holding it ("": none)
	origins map[string]string // repository root → origin id
}

func (r *rootMemo) memo() *rootMemo {
	if r.shared != nil {
		return r.shared
	}
	return r
}

// cached returns m[k] under the lock.
func (r *rootMemo) cached(m *map[string]string, k string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := (*m)[k]
	return v, ok
}

// keep stores m[k] = v under the lock. The work is done outside it, so
// readers resolving different directories do not wait on each other's
// system calls; two resolving the same one get the same answer.
func (r *rootMemo) keep(m *map[string]string, k, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

// get is cwd's identity root.
func (r *rootMemo) get(cwd string) string {
	if cwd == "" {
		return ""
	}
	m := r.memo()
	if v, ok := m.cached(&m.roots, cwd); ok {
		return v
	}
	v := identity.Resolve(cwd).Path
	m.keep(&m.roots, cwd, v)
	return v
}

// origin is the origin id of the repository holding cwd.
func (r *rootMemo) origin(cwd string) string {
	if cwd == "" {
		return ""
	}
	m := r.memo()
	root := m.repoRoot(cwd)
	if root == "" {
		return ""
	}
	if v, ok := m.cached(&m.origins, root); ok {
		return v
	}
	v := originID(root)
	m.keep(&m.origins, root, v)
	return v
}

// repoRoot is repoRoot(dir), remembering the answer for every directory
// it walked through on the way up.
func (r *rootMemo) repoRoot(dir string) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	var walked []string
	root := ""
	for d := filepath.Clean(dir); ; {
		if v, ok := r.cached(&r.repos, d); ok {
			root = v
			break
		}
		walked = append(walked, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for _, d := range walked {
		r.keep(&r.repos, d, root)
	}
	return root
}

// RepoOf returns the repository holding dir and its origin id ("" when
// dir is not in a repository).
func RepoOf(dir string) (root, id string) {
	root = repoRoot(dir)
	if root != "" {
		id = originID(root)
	}
	return root, id
}

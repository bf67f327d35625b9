// Package evidence is what a full read of a session learns about what it
// did — the files it read and changed, the commits it made and named, the
// work items it referred to — and the repositories a session's
// directories belong to (their roots and origin ids, resolved once per
// listing by a RootMemo). It knows no agent's format: the readers feed it
// the tool calls, results and prompts they parse.
package evidence

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent"
)

// GitTimeout bounds all `git cat-file` checks of one show.
var GitTimeout = 3 * time.Second

var (
	commitLine = regexp.MustCompile(`\[([^\]\s]+)(?: \([^)\n]*\))? ([0-9a-f]{7,40})\] ([^\n]*)`)
	hexToken   = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	cdPrefix   = regexp.MustCompile(`^\s*cd\s+("[^"]+"|'[^']+'|\S+)\s*(&&|;)`)
	patchFile  = regexp.MustCompile(`(?m)^\*\*\* (?:Update|Add|Delete) File: (.+)$`)
)

// Collector accumulates evidence during a full read.
type Collector struct {
	rules    []agent.WorkRule
	read     map[string]bool
	modified map[string]bool
	dirs     map[string]bool
	commits  []agent.Commit
	pending  map[string]bool // tool call ids of git commit commands
	hexes    map[string]bool
	texts    []string // prompts, for work references
}

// NewCollector is a collector applying rules (nil: the default rules).
func NewCollector(rules []agent.WorkRule) *Collector {
	if rules == nil {
		rules = agent.DefaultWorkRules()
	}
	return &Collector{
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

// ToolUse records a tool call (Claude Code names and inputs, plus Codex's
// exec_command/shell/apply_patch).
func (e *Collector) ToolUse(id, name string, input gjson.Result, cwd string) {
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

func (e *Collector) patch(text, cwd string) {
	for _, name := range PatchFiles(text) {
		e.modified[absIn(cwd, name)] = true
	}
}

// PatchFiles are the files an apply_patch patch names.
func PatchFiles(text string) []string {
	var out []string
	for _, m := range patchFile.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

// ToolResult looks for "[branch sha] subject" after a git commit call.
func (e *Collector) ToolResult(id, text string) {
	if !e.pending[id] {
		return
	}
	delete(e.pending, id)
	if m := commitLine.FindStringSubmatch(text); m != nil {
		e.commits = append(e.commits, agent.Commit{SHA: m[2], Branch: m[1], Subject: strings.TrimSpace(m[3])})
	}
}

// Prompt records a human prompt (for commit ids and work references).
func (e *Collector) Prompt(text string) {
	e.texts = append(e.texts, text)
	for _, h := range hexToken.FindAllString(text, 50) {
		if len(e.hexes) < 50 {
			e.hexes[h] = true
		}
	}
}

// SortedKeys are m's non-empty keys, sorted.
func SortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Finish resolves repositories, validates referenced commits (bounded by
// GitTimeout) and applies the work-reference rules.
func (e *Collector) Finish(ctx context.Context, s agent.Session) *agent.Evidence {
	ev := &agent.Evidence{
		FilesRead: SortedKeys(e.read), FilesModified: SortedKeys(e.modified),
		CommitsCreated: e.commits, CommitsReferenced: []string{}, WorkRefs: []agent.WorkRef{}, Repos: []agent.Repo{},
	}
	if ev.CommitsCreated == nil {
		ev.CommitsCreated = []agent.Commit{}
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
	for _, d := range SortedKeys(cands) {
		if r := repoRoot(d); r != "" {
			roots[r] = true
		}
	}
	for _, r := range SortedKeys(roots) {
		ev.Repos = append(ev.Repos, agent.Repo{Root: r, ID: originID(r)})
	}
	created := map[string]bool{}
	for _, c := range e.commits {
		created[c.SHA] = true
	}
	if len(e.hexes) > 0 && len(ev.Repos) > 0 {
		tctx, cancel := context.WithTimeout(ctx, GitTimeout)
		for _, h := range SortedKeys(e.hexes) {
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
					ev.WorkRefs = append(ev.WorkRefs, agent.WorkRef{Rule: rule.Name, Ref: m})
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

// RepoOf returns the repository holding dir and its origin id ("" when
// dir is not in a repository).
func RepoOf(dir string) (root, id string) {
	root = repoRoot(dir)
	if root != "" {
		id = originID(root)
	}
	return root, id
}

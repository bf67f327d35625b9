package agent

// How tether describes an agent session, the same way for every agent:
// the Session an agent's reader lists and shows and its parts, the Reader
// interface the catalog merges, message counts and the searchable texts
// of a transcript. The readers (agent/claude/claudesessions,
// agent/codex/codexsessions) fill these types in; the catalog, the
// picker, search and summaries read them.

import (
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/internal/gauge"
)

// Session states.
const (
	StateRunning   = "running"
	StateResumable = "resumable"
	StateUnknown   = "unknown"
	// StateArchived is a session whose live transcript is gone and that
	// exists only in tether's archive.
	StateArchived = "archived"
)

// StatusPossibly is the Runtime.Status of a session that may be running:
// a Claude Code 2.0.x process in its project wrote it lately, but leaves
// nothing that says which session it runs.
const StatusPossibly = "possibly"

// Title sources, from the most to the least deliberate. The first three
// are Claude Code's record types that carry the title.
const (
	TitleCustom      = "custom-title"
	TitleAI          = "ai-title"
	TitleLastPrompt  = "last-prompt"
	TitleSummary     = "summary"
	TitleFirstPrompt = "first-prompt"
	TitleName        = "name"
	TitleThread      = "title"
	TitleFirstUser   = "first-user-message"
	TitleCwd         = "cwd"
)

// Session is one agent session, described the same way for every harness.
type Session struct {
	Harness string `json:"harness" jsonschema:"enum=claude-code,enum=codex,enum=opencode"`
	ID      string `json:"id" jsonschema:"minLength=1"`
	// Cwd is the directory the session was started in, as recorded.
	Cwd string `json:"cwd" jsonschema:"minLength=1"`
	// IdentityRoot is Cwd resolved by tether's identity rules (symlinks,
	// trailing slashes and NFC folded), the key --cwd matches on.
	IdentityRoot string `json:"identityRoot"`
	GitBranch    string `json:"gitBranch,omitempty"`
	GitOrigin    string `json:"gitOrigin,omitempty"`
	GitSHA       string `json:"gitSha,omitempty"`

	Created           time.Time  `json:"created"`
	LastActivity      time.Time  `json:"lastActivity"`
	LastHumanActivity *time.Time `json:"lastHumanActivity,omitempty"`

	Title       string `json:"title"`
	TitleSource string `json:"titleSource" jsonschema:"enum=custom-title,enum=ai-title,enum=last-prompt,enum=summary,enum=first-prompt,enum=name,enum=title,enum=first-user-message,enum=cwd"`
	// FirstPrompt and RecentPrompts are human prompts (prompt-derived:
	// removed by --no-content).
	FirstPrompt   string   `json:"firstPrompt,omitempty"`
	RecentPrompts []string `json:"recentPrompts,omitempty"`

	// Counts are known only after a full read (show), or from a list
	// where the agent's database counts them (OpenCode).
	Counts *Counts `json:"counts,omitempty"`
	// Messages is the number of messages (Counts.Messages' rule), when
	// known: show always knows it; a list knows it for transcripts it read
	// whole, grew from a known count, or the search index counted.
	Messages *int `json:"messages,omitempty" jsonschema:"minimum=0"`

	Archived bool     `json:"archived"`
	State    string   `json:"state" jsonschema:"enum=running,enum=resumable,enum=unknown,enum=archived"`
	Runtime  *Runtime `json:"runtime,omitempty"`
	// Stale is set when tether's last resume of the session failed and
	// the transcript has not changed since: resuming it as is would start
	// fresh.
	Stale *Stale `json:"stale,omitempty"`

	Context *ContextUsage `json:"context,omitempty"`
	// ContextCurve is the context in use after each main-chain turn (full
	// read only).
	ContextCurve []int64 `json:"contextCurve,omitempty"`
	// Spend is what the session's responses cost, counted as tether
	// usage counts them (show, and the list's COST column, only).
	Spend *Spend `json:"spend,omitempty"`

	// Archive is set for a session whose transcript is in tether's
	// archive only (state archived).
	Archive *ArchiveRef `json:"archive,omitempty"`

	Evidence *Evidence  `json:"evidence,omitempty"`
	Resume   ResumeSpec `json:"resume"`

	// Summary is the stored summary of the session (tether sessions
	// summarize), when there is one (prompt-derived: removed by
	// --no-content).
	Summary *Summary `json:"summary,omitempty"`

	// Source is the transcript (Claude Code) or rollout (Codex) file.
	Source string `json:"source"`
	// SourceSize and SourceMTime (Unix ns) are Source's size and mtime as
	// the listing knew them, so the search index need not stat it again
	// (SourceMTime 0: not known).
	SourceSize  int64  `json:"-"`
	SourceMTime int64  `json:"-"`
	CLIVersion  string `json:"cliVersion,omitempty"`
	// Origin is how the session was started: cli, sdk-cli (claude -p),
	// exec, vscode, ….
	Origin string `json:"origin,omitempty"`
	Model  string `json:"model,omitempty"`

	// Parent is the session this one is a subagent's session of, when the
	// agent records sessions of their own for subagents (OpenCode).
	Parent string `json:"parent,omitempty"`
	// Tokens are the session's running sums, when the agent keeps them
	// (OpenCode).
	Tokens *TokenSums `json:"tokens,omitempty"`
}

// TokenSums are the tokens and cost a session has used so far, summed
// over its requests.
type TokenSums struct {
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	Reasoning  int64   `json:"reasoning"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	Cost       float64 `json:"cost"`
}

// Stale is a failed resume on record.
type Stale struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// Fix is the command that would make the session resumable again
	// ("" when none is known).
	Fix string `json:"fix,omitempty"`
}

// Counts are message and tool-call totals of the main chain.
type Counts struct {
	HumanPrompts int `json:"humanPrompts"`
	Messages     int `json:"messages"`
	ToolCalls    int `json:"toolCalls"`
	// Compactions is how many times the agent compacted the session's
	// history, where it records that (OpenCode).
	Compactions int `json:"compactions,omitempty"`
}

// Runtime describes the live process of a running session.
type Runtime struct {
	PID    int    `json:"pid"`
	Status string `json:"status,omitempty"`
	// Tmux is the tmux session name the process runs in, if any.
	Tmux string `json:"tmux,omitempty"`
	// TmuxTarget is the full "session:@window.%pane" Claude recorded.
	TmuxTarget string `json:"tmuxTarget,omitempty"`
}

// ContextUsage is the context in use after the last main-chain turn.
type ContextUsage struct {
	Tokens int64 `json:"tokens"`
	Window int64 `json:"window"`
	// WindowKnown is false when Window is a fallback guess.
	WindowKnown bool    `json:"windowKnown"`
	Percent     float64 `json:"percent"`
}

// Text is how show and the picker's preview write the context in use: the
// statusLine's "63% (126k/200k tokens)", through the one token formatter,
// and ", window assumed" when the model's window is a guess.
func (c *ContextUsage) Text() string {
	text := gauge.Pct(c.Percent) + "% (" + gauge.Tokens(c.Tokens) + "/" + gauge.Tokens(c.Window) + " tokens)"
	if !c.WindowKnown {
		text += ", window assumed"
	}
	return text
}

// ArchiveRef says where an archived session's transcript is kept.
type ArchiveRef struct {
	// Path is the stored file (a hard link, or a zstd copy).
	Path string `json:"path"`
	// Compressed is set for a zstd copy.
	Compressed bool `json:"compressed"`
	// Restore is where the transcript goes back to.
	Restore string `json:"restore"`
}

// Diagnostic is a file a reader could not make sense of.
type Diagnostic struct {
	Harness string `json:"harness"`
	Path    string `json:"path"`
	Problem string `json:"problem"`
}

// Evidence is what a full read learns about what the session did.
type Evidence struct {
	Repos             []Repo    `json:"repos"`
	FilesRead         []string  `json:"filesRead"`
	FilesModified     []string  `json:"filesModified"`
	CommitsCreated    []Commit  `json:"commitsCreated"`
	CommitsReferenced []string  `json:"commitsReferenced"`
	WorkRefs          []WorkRef `json:"workRefs"`
}

// Repo is a git repository the session touched.
type Repo struct {
	Root string `json:"root"`
	// ID is the origin remote as host/owner/name ("" without one).
	ID string `json:"id,omitempty"`
}

// Commit is a commit the session created.
type Commit struct {
	SHA    string `json:"sha"`
	Branch string `json:"branch,omitempty"`
	// Subject is the commit message's first line (prompt-derived).
	Subject string `json:"subject,omitempty"`
}

// WorkRef is a work item reference (ticket id) a rule found.
type WorkRef struct {
	Rule string `json:"rule"`
	Ref  string `json:"ref"`
}

// Summary is what a summary provider said about a session, validated
// and stored by tether.
type Summary struct {
	Title       string `json:"title" jsonschema:"minLength=1,maxLength=80"`
	Objective   string `json:"objective"`
	Completed   string `json:"completed"`
	CurrentWork string `json:"currentWork"`
	LikelyNext  string `json:"likelyNext"`
	// Provider and Model made it, at Created.
	Provider string    `json:"provider"`
	Model    string    `json:"model,omitempty"`
	Created  time.Time `json:"created"`
	// LastActivity is the session's last activity the summary covers;
	// Current is false when the session has changed since.
	LastActivity time.Time `json:"lastActivity"`
	Current      bool      `json:"current"`
	// HumanPrompts is how many human prompts the session had then.
	HumanPrompts int `json:"humanPrompts"`
}

// Key is the session's unique key across harnesses.
func (s Session) Key() string { return s.Harness + ":" + s.ID }

// ShortID is the first eight characters of the id.
func (s Session) ShortID() string {
	if len(s.ID) > 8 {
		return s.ID[:8]
	}
	return s.ID
}

// StripContent removes every prompt-derived field; the title falls back
// to the cwd base name.
func (s *Session) StripContent() {
	s.Title, s.TitleSource = CwdTitle(s.Cwd), TitleCwd
	s.FirstPrompt = ""
	s.RecentPrompts = nil
	s.Summary = nil
	if s.Evidence != nil {
		s.Evidence.WorkRefs = []WorkRef{}
		s.Evidence.CommitsReferenced = []string{}
		for i := range s.Evidence.CommitsCreated {
			s.Evidence.CommitsCreated[i].Subject = ""
		}
	}
}

// CwdTitle is the title of a session that has no other: its cwd's base
// name.
func CwdTitle(cwd string) string {
	if cwd == "" {
		return "(unknown)"
	}
	return filepath.Base(cwd)
}

// NormalizeTimes makes created ≤ last activity and last human ≤ last
// activity hold even when clocks or records disagree.
func (s *Session) NormalizeTimes() {
	if s.LastActivity.Before(s.Created) {
		s.LastActivity = s.Created
	}
	if s.LastHumanActivity != nil {
		if s.LastHumanActivity.After(s.LastActivity) {
			s.LastActivity = *s.LastHumanActivity
		}
	}
}

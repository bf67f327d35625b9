// Package catalog finds, describes and resumes every Claude Code and Codex
// session on the machine.
//
// Each harness has a Reader with a cheap List (bounded reads per session,
// results cached per file) and a full Get (one pass over the whole
// transcript, for evidence and counts). Readers never fail because one
// file is odd: such files become Diagnostics and the other sessions are
// still listed. Only an unreadable storage root is an error.
package catalog

import (
	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/evidence"
)

// Harness names (declared once, in package agent).
const (
	ClaudeCode = agent.Claude
	Codex      = agent.Codex
	OpenCode   = agent.OpenCode
)

// The types readers produce live in package agent, below the readers:
// these are their names here, for the packages that know the catalog.
type (
	Session      = agent.Session
	Stale        = agent.Stale
	Counts       = agent.Counts
	Runtime      = agent.Runtime
	ContextUsage = agent.ContextUsage
	ResumeSpec   = agent.ResumeSpec
	Diagnostic   = agent.Diagnostic
	Evidence     = agent.Evidence
	Repo         = agent.Repo
	Commit       = agent.Commit
	WorkRef      = agent.WorkRef
	Summary      = agent.Summary
	ArchiveRef   = agent.ArchiveRef
	Reader       = agent.Reader
	ListOptions  = agent.ListOptions
	File         = agent.File
	Opener       = agent.Opener
	WorkRule     = agent.WorkRule
	MessageCount = agent.MessageCount
	CountIndex   = agent.CountIndex
	CountLookup  = agent.CountLookup
	TextKind     = agent.TextKind
	Text         = agent.Text
)

// Session states.
const (
	StateRunning   = agent.StateRunning
	StateResumable = agent.StateResumable
	StateUnknown   = agent.StateUnknown
	StateArchived  = agent.StateArchived
)

// StatusPossibly is the Runtime.Status of a session that may be running
// (see agent.StatusPossibly).
const StatusPossibly = agent.StatusPossibly

// Title sources, from the most to the least deliberate.
const (
	TitleCustom      = agent.TitleCustom
	TitleAI          = agent.TitleAI
	TitleLastPrompt  = agent.TitleLastPrompt
	TitleSummary     = agent.TitleSummary
	TitleFirstPrompt = agent.TitleFirstPrompt
	TitleName        = agent.TitleName
	TitleThread      = agent.TitleThread
	TitleFirstUser   = agent.TitleFirstUser
	TitleCwd         = agent.TitleCwd
)

// Text kinds, in the order a search weighs them.
const (
	TextTitle     = agent.TextTitle
	TextPrompt    = agent.TextPrompt
	TextAssistant = agent.TextAssistant
	TextTool      = agent.TextTool
)

// OSOpen opens files on the real file system.
func OSOpen(name string) (File, error) { return agent.OSOpen(name) }

// DefaultWorkRules are used when the config names none.
func DefaultWorkRules() []WorkRule { return agent.DefaultWorkRules() }

func cwdTitle(cwd string) string { return agent.CwdTitle(cwd) }

// RemoteID turns a git remote URL into host/owner/name (see
// evidence.RemoteID).
func RemoteID(url string) string { return evidence.RemoteID(url) }

// RepoOf returns the repository holding dir and its origin id ("" when
// dir is not in a repository).
func RepoOf(dir string) (root, id string) { return evidence.RepoOf(dir) }

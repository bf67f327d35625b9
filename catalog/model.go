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
	"slices"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/session"
)

// Harness names (declared once, in package agent).
const (
	ClaudeCode = agent.Claude
	Codex      = agent.Codex
)

// The types readers produce live in agent/session, below the agents:
// these are their names here, for the packages that know the catalog.
type (
	Session      = session.Session
	Stale        = session.Stale
	Counts       = session.Counts
	Runtime      = session.Runtime
	ContextUsage = session.ContextUsage
	ResumeSpec   = session.ResumeSpec
	Diagnostic   = session.Diagnostic
	Evidence     = session.Evidence
	Repo         = session.Repo
	Commit       = session.Commit
	WorkRef      = session.WorkRef
	Summary      = session.Summary
	ArchiveRef   = session.ArchiveRef
	Reader       = session.Reader
	ListOptions  = session.ListOptions
	File         = session.File
	Opener       = session.Opener
	WorkRule     = session.WorkRule
	MessageCount = session.MessageCount
	CountIndex   = session.CountIndex
	CountLookup  = session.CountLookup
	TextKind     = session.TextKind
	Text         = session.Text
)

// Session states.
const (
	StateRunning   = session.StateRunning
	StateResumable = session.StateResumable
	StateUnknown   = session.StateUnknown
	StateArchived  = session.StateArchived
)

// StatusPossibly is the Runtime.Status of a session that may be running
// (see session.StatusPossibly).
const StatusPossibly = session.StatusPossibly

// Title sources, from the most to the least deliberate.
const (
	TitleCustom      = session.TitleCustom
	TitleAI          = session.TitleAI
	TitleLastPrompt  = session.TitleLastPrompt
	TitleSummary     = session.TitleSummary
	TitleFirstPrompt = session.TitleFirstPrompt
	TitleName        = session.TitleName
	TitleThread      = session.TitleThread
	TitleFirstUser   = session.TitleFirstUser
	TitleCwd         = session.TitleCwd
)

// Text kinds, in the order a search weighs them.
const (
	TextTitle     = session.TextTitle
	TextPrompt    = session.TextPrompt
	TextAssistant = session.TextAssistant
	TextTool      = session.TextTool
)

// OSOpen opens files on the real file system.
func OSOpen(name string) (File, error) { return session.OSOpen(name) }

// DefaultWorkRules are used when the config names none.
func DefaultWorkRules() []WorkRule { return session.DefaultWorkRules() }

func cwdTitle(cwd string) string { return session.CwdTitle(cwd) }

// valueBlocks hands out the small values a listing's sessions point to
// (resume argv, last human time, context, message count) from blocks of
// valueBlock, not one allocation each: 10,000 sessions made ~35,000
// allocations of them. A nil *valueBlocks allocates each value.
type valueBlocks struct {
	strs  []string
	times []time.Time
	ctxs  []ContextUsage
	ints  []int
}

// strings returns a slice holding ss, its capacity its length (an append
// to it copies, never writing into the block).
func (b *valueBlocks) strings(ss ...string) []string {
	if b == nil {
		return slices.Clone(ss)
	}
	if len(b.strs)+len(ss) > cap(b.strs) {
		b.strs = make([]string, 0, max(valueBlock, len(ss)))
	}
	n := len(b.strs)
	b.strs = append(b.strs, ss...)
	return b.strs[n : n+len(ss) : n+len(ss)]
}

func (b *valueBlocks) time(t time.Time) *time.Time {
	if b == nil {
		v := t // a copy: &t would move every call's t to the heap
		return &v
	}
	return blockValue(&b.times, t)
}

func (b *valueBlocks) context(c ContextUsage) *ContextUsage {
	if b == nil {
		v := c // a copy: &c would move every call's c to the heap
		return &v
	}
	return blockValue(&b.ctxs, c)
}

func (b *valueBlocks) int(n int) *int {
	if b == nil {
		v := n // a copy: &n would move every call's n to the heap
		return &v
	}
	return blockValue(&b.ints, n)
}

// blockValue stores v in *block (a new block when it is full) and returns
// where.
func blockValue[T any](block *[]T, v T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, valueBlock)
	}
	*block = append(*block, v)
	return &(*block)[len(*block)-1]
}

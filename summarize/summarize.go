package summarize

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/catalog"
)

// Gather reads what a summary is made from: the catalog's full read of s,
// the end of its transcript (last tool calls, last assistant text, read
// by the session's agent among agents) and the stored summary, if any.
func Gather(ctx context.Context, c *catalog.Catalog, agents agent.Registry, s catalog.Session, dataDir string) (Evidence, error) {
	full, err := c.Get(ctx, s)
	if err != nil {
		return Evidence{}, err
	}
	ev := Evidence{Session: full}
	if a := agents.Get(full.Harness); a != nil && full.Source != "" {
		if r, err := a.Recent(nil, full.Source, jsonl.DefaultTail, RecentTools); err == nil {
			ev.Recent = r
		}
	}
	ev.Previous, _ = Load(dataDir, full.Harness, full.ID)
	return ev, nil
}

// Summarizer makes and stores summaries with one provider.
type Summarizer struct {
	Provider Provider
	DataDir  string
	Budget   int
	// Force summarizes again even when the stored summary is current.
	Force bool
	Now   func() time.Time

	checkOnce sync.Once
	checkErr  error
}

// Result is what happened to one session.
type Result struct {
	Summary catalog.Summary
	// Cached: the stored summary was current; nothing was sent.
	Cached bool
	Input  Input
}

// Run summarizes one session unless its stored summary is current. A
// provider error or an invalid reply returns an error and stores nothing.
func (z *Summarizer) Run(ctx context.Context, ev Evidence) (Result, error) {
	s := ev.Session
	if prev := ev.Previous; prev != nil && Fresh(prev, s.LastActivity) {
		if !z.Force {
			return Result{Summary: *prev, Cached: true}, nil
		}
		// Redoing a current summary: do not anchor on it.
		ev.Previous = nil
	}
	in := Build(ev, z.Budget)
	z.checkOnce.Do(func() { z.checkErr = z.Provider.Check(ctx) })
	if z.checkErr != nil {
		return Result{Input: in}, z.checkErr
	}
	text, err := z.Provider.Summarize(ctx, in)
	if err != nil {
		return Result{Input: in}, fmt.Errorf("provider %s: %w", z.Provider.Name(), err)
	}
	sum, err := ParseReply(text)
	if err != nil {
		return Result{Input: in}, fmt.Errorf("provider %s: %w", z.Provider.Name(), err)
	}
	sum.Provider, sum.Model = z.Provider.Name(), z.Provider.Model()
	sum.Created = z.Now().UTC()
	sum.LastActivity = s.LastActivity
	if s.Counts != nil {
		sum.HumanPrompts = s.Counts.HumanPrompts
	}
	if err := Save(z.DataDir, s.Harness, s.ID, sum); err != nil {
		return Result{Input: in}, err
	}
	sum.Current = true
	return Result{Summary: sum, Input: in}, nil
}

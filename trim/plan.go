package trim

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/agent/claude"
)

// Policy names what a trim keeps.
type Policy string

const (
	// PolicyKeep keeps the skeleton of a session plus the Reads of kept
	// paths and drops the rest of the conversation.
	PolicyKeep Policy = "keep"
	// PolicyFit keeps the conversation and shrinks it oldest-first until
	// the estimated context fits a token budget.
	PolicyFit Policy = "fit"
)

// DefaultWindow is the context window assumed when the model is unknown.
const DefaultWindow = agent.DefaultWindow

// DefaultLargeResult is the size above which fit replaces a tool_result's
// content with a marker.
const DefaultLargeResult = 1024

// Options configure a trim.
type Options struct {
	Policy Policy
	// KeepPaths are absolute, clean paths (files or directories) whose
	// Reads the keep policy retains.
	KeepPaths []string
	// FitTokens is the fit policy's budget; when 0, FitPercent of the
	// window is used.
	FitTokens  int
	FitPercent float64
	// Window overrides the context window derived from the model.
	Window int
	// Windows derives the window from the model when Window is 0.
	Windows agent.Windows
	// LargeResult is the tool_result size in bytes above which fit may
	// replace it (DefaultLargeResult when 0).
	LargeResult int
	// AllowUnknown passes unknown chain record types and unknown content
	// blocks through instead of refusing.
	AllowUnknown bool
}

// Marker is what replaces a trimmed tool_result content or toolUseResult.
func Marker(n int64) string { return fmt.Sprintf("[trimmed by tether: %d bytes]", n) }

// edit is what pass 2 does to one record.
type edit struct {
	drop          bool
	relink        bool
	relinkLogical bool
	relinkLeaf    bool
	trimTUR       bool
	parent        uid   // 0 writes null
	logical       uid   // 0 writes null
	leaf          uid   // 0 writes null
	trimBlocks    []int // tool_result blocks whose content becomes a marker
}

// KindStat counts one kind of record.
type KindStat struct {
	Kind         string `json:"kind"`
	Kept         int    `json:"kept"`
	Dropped      int    `json:"dropped"`
	Trimmed      int    `json:"trimmed"`
	KeptBytes    int64  `json:"keptBytes"`
	DroppedBytes int64  `json:"droppedBytes"`
	TrimmedBytes int64  `json:"trimmedBytes"`
}

// Report describes a trim (or what it would do).
type Report struct {
	Path          string     `json:"path"`
	Policy        Policy     `json:"policy"`
	DryRun        bool       `json:"dryRun"`
	Changed       bool       `json:"changed"`
	RecordsBefore int        `json:"recordsBefore"`
	RecordsAfter  int        `json:"recordsAfter"`
	BytesBefore   int64      `json:"bytesBefore"`
	BytesAfter    int64      `json:"bytesAfter"`
	TokensBefore  int64      `json:"estimatedTokensBefore"`
	TokensAfter   int64      `json:"estimatedTokensAfter"`
	Target        int64      `json:"targetTokens,omitempty"`
	Window        int        `json:"window,omitempty"`
	Model         string     `json:"model,omitempty"`
	Relinked      int        `json:"relinked"`
	Kinds         []KindStat `json:"kinds"`
	Backup        string     `json:"backup,omitempty"`
	// Calibrated says the fit's budget came from the API's refusal of
	// the prompt as too long, with the API's count when it stated one.
	Calibrated bool  `json:"calibrated,omitempty"`
	APITokens  int64 `json:"apiTokens,omitempty"`
	APILimit   int64 `json:"apiLimit,omitempty"`
}

// FitError says the fit policy could not reach its budget; nothing was
// written.
type FitError struct {
	Tokens, Target int64
}

func (e *FitError) Error() string {
	return fmt.Sprintf("cannot fit: an estimated %d tokens remain after dropping every older turn, target %d; nothing was modified", e.Tokens, e.Target)
}

// kindOf labels a record for the report.
func (sr *scanResult) kindOf(rc *rec) string {
	typ := sr.names.text(rc.typ)
	switch rc.class {
	case classSkip:
		return "blank-or-truncated"
	case classNonChain:
		return typ
	case classUnknownChain:
		return "unknown:" + typ
	}
	if rc.sidechain {
		return "sidechain"
	}
	switch rc.typ {
	case nameSystem:
		if rc.boundary {
			return claude.SubtypeCompactBoundary
		}
		return "system"
	case nameUser:
		switch {
		case rc.summary:
			return "compact_summary"
		case rc.results.n > 0:
			return "tool_result"
		case rc.human:
			return "prompt"
		default:
			return "meta"
		}
	case nameAssistant:
		switch {
		case rc.synthetic:
			return "api_error"
		case rc.uses.n > 0:
			return "tool_use"
		case rc.thinking:
			return "thinking"
		default:
			return "assistant_text"
		}
	}
	return typ
}

// graph is the uuid structure of a scanned transcript. Records are
// indexed by their position; uuids and tool ids by their interned number.
type graph struct {
	*scanResult
	recOf    []int32 // uid -> the record that has it, -1 for none
	parent   []int32 // index of the parent, -1 at a root
	active   []int   // the chain from the root to the newest main-chain leaf
	useRec   []int32 // tid -> the (last) record with that tool_use, -1 for none
	resRec   []int32 // tid -> the (last) record with that tool_result, -1 for none
	unpaired []bool  // tid -> a tool block without its partner
}

func filled(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

func buildGraph(sr *scanResult) (*graph, error) {
	recs := sr.recs
	g := &graph{scanResult: sr, recOf: filled(sr.uuids.len()), parent: filled(len(recs)),
		useRec: filled(sr.tools.len()), resRec: filled(sr.tools.len()), unpaired: make([]bool, sr.tools.len())}
	for i := range recs {
		rc := &recs[i]
		if rc.uuid == 0 || rc.class == classSkip {
			continue
		}
		if j := g.recOf[rc.uuid]; j >= 0 {
			return nil, fmt.Errorf("line %d: duplicate uuid %q (first on line %d)", rc.line, sr.uuids.text(rc.uuid), recs[j].line)
		}
		g.recOf[rc.uuid] = int32(i)
	}
	hasChild := make([]bool, len(recs))
	for i := range recs {
		rc := &recs[i]
		if rc.uuid == 0 || rc.parent == 0 {
			continue
		}
		j := g.recOf[rc.parent]
		if j < 0 {
			return nil, fmt.Errorf("line %d: parentUuid %q is not in the file", rc.line, sr.uuids.text(rc.parent))
		}
		g.parent[i] = j
		hasChild[j] = true
	}
	if line := cycleLine(recs, g.parent); line > 0 {
		// Every policy refuses a corrupt chain the same way, before
		// planning: a cycle has no leaf, so it would otherwise "fit" at 0.
		return nil, fmt.Errorf("line %d: parentUuid cycle", line)
	}
	g.pairTools()
	for i := len(recs) - 1; i >= 0; i-- {
		rc := &recs[i]
		if rc.uuid == 0 || rc.sidechain || hasChild[i] || (rc.class != classChain && rc.class != classUnknownChain) {
			continue
		}
		for j, steps := i, 0; j >= 0; j, steps = int(g.parent[j]), steps+1 {
			if steps > len(recs) {
				return nil, fmt.Errorf("line %d: parentUuid cycle", rc.line)
			}
			g.active = append(g.active, j)
		}
		break
	}
	for l, r := 0, len(g.active)-1; l < r; l, r = l+1, r-1 {
		g.active[l], g.active[r] = g.active[r], g.active[l]
	}
	return g, nil
}

// pairTools finds each tool id's tool_use and tool_result records and
// marks the ids whose blocks are not one tool_use followed by one
// tool_result.
func (g *graph) pairTools() {
	for i := range g.recs {
		rc := &g.recs[i]
		if rc.typ == nameAssistant {
			for _, u := range g.usesOf(rc) {
				if g.useRec[u.id] >= 0 {
					g.unpaired[u.id] = true
				}
				g.useRec[u.id] = int32(i)
			}
		}
		if rc.typ == nameUser {
			for _, r := range g.resultsOf(rc) {
				if g.resRec[r.id] >= 0 {
					g.unpaired[r.id] = true
				}
				g.resRec[r.id] = int32(i)
			}
		}
	}
	for id := range g.useRec {
		u, r := g.useRec[id], g.resRec[id]
		if (u >= 0 && r < u) || (r >= 0 && u < 0) {
			g.unpaired[id] = true
		}
	}
}

// cycleLine returns the line of a record whose parentUuid chain loops,
// or 0. Each record is walked once (colouring), so this is linear.
func cycleLine(recs []rec, parent []int32) int {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(recs))
	var path []int
	for i := range recs {
		path = path[:0]
		j := i
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			j = int(parent[j])
		}
		if j >= 0 && state[j] == onPath {
			return int(recs[j].line)
		}
		for _, k := range path {
			state[k] = done
		}
	}
	return 0
}

// hasUnpaired reports whether a record holds a tool block without its
// partner; such records are dropped (the CLI would paper over them).
func (g *graph) hasUnpaired(rc *rec) bool {
	for _, u := range g.usesOf(rc) {
		if g.unpaired[u.id] {
			return true
		}
	}
	for _, r := range g.resultsOf(rc) {
		if g.unpaired[r.id] {
			return true
		}
	}
	return false
}

// ids calls fn with the tool ids the record pairs: those of an assistant
// record's tool_use blocks or a user record's tool_result blocks.
func (g *graph) ids(rc *rec, fn func(tid)) {
	if rc.typ == nameAssistant {
		for _, u := range g.usesOf(rc) {
			fn(u.id)
		}
	}
	if rc.typ == nameUser {
		for _, r := range g.resultsOf(rc) {
			fn(r.id)
		}
	}
}

// nIDs is how many ids ids calls fn with.
func (g *graph) nIDs(rc *rec) int {
	switch rc.typ {
	case nameAssistant:
		return int(rc.uses.n)
	case nameUser:
		return int(rc.results.n)
	}
	return 0
}

// planner holds the decisions being made.
type planner struct {
	g      *graph
	opts   Options
	edits  []edit
	send   []int64 // what each record sends after edits
	saved  []int64 // bytes saved in each record by markers
	active []bool  // on the active chain
	cur    int64   // bytes the active chain sends now
}

func makePlan(sr *scanResult, opts Options) ([]edit, *Report, error) {
	g, err := buildGraph(sr)
	if err != nil {
		return nil, nil, err
	}
	recs := sr.recs
	p := &planner{g: g, opts: opts, edits: make([]edit, len(recs)), send: make([]int64, len(recs)),
		saved: make([]int64, len(recs)), active: make([]bool, len(recs))}
	rep := &Report{Policy: opts.Policy, RecordsBefore: len(recs)}
	rendered := false
	for i := range recs {
		rendered = rendered || (recs[i].typ == nameAttachment && !recs[i].unrendered)
	}
	for i := range recs {
		p.send[i] = recs[i].send
		if rendered && recs[i].typ == nameAttachment && recs[i].unrendered {
			p.send[i] = 0
		}
		if recs[i].class == classSkip {
			p.edits[i].drop = true
		}
	}
	for _, i := range g.active {
		p.active[i] = true
		p.cur += p.send[i]
	}
	rep.Model = p.lastModel()
	rep.TokensBefore = p.estimate()
	switch opts.Policy {
	case PolicyKeep:
		p.keep()
	case PolicyFit:
		rep.Window = opts.Window
		if rep.Window <= 0 {
			w, _ := opts.Windows.For(rep.Model, 0, 0)
			rep.Window = int(w)
		}
		rep.Target = int64(opts.FitTokens)
		if rep.Target <= 0 {
			rep.Target = int64(float64(rep.Window) * opts.FitPercent / 100)
		}
		if i := p.standingRefusal(); i >= 0 {
			p.calibrate(rep, i)
		}
		if rep.Target <= 0 {
			return nil, nil, fmt.Errorf("fit: no token budget")
		}
		if err := p.fit(rep.Target); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("unknown policy %q", opts.Policy)
	}
	p.relink()
	if err := p.guardUnknown(); err != nil {
		return nil, nil, err
	}
	p.cur = 0
	for _, i := range g.active {
		if !p.edits[i].drop {
			p.cur += p.send[i]
		}
	}
	rep.TokensAfter = p.estimate()
	p.fillReport(rep)
	return p.edits, rep, nil
}

// standingRefusal is the index of the API's prompt-too-long refusal that
// still stands: on the active chain with no turn after it (nothing the
// API accepted since). -1 when there is none.
func (p *planner) standingRefusal() int {
	at := p.g.refusal
	if at < 0 || !p.active[at] {
		return -1
	}
	for k := len(p.g.active) - 1; k >= 0; k-- {
		i := p.g.active[k]
		if i == at {
			return at
		}
		if t := p.g.recs[i].typ; t == nameUser || t == nameAssistant {
			return -1
		}
	}
	return -1
}

// calibrate makes the budget the API's truth when it has refused the
// prompt as too long: tether's estimate is scaled so that it matches the
// tokens the API counted, and the budget is the fit's share of the API's
// stated limit (FitPercent of it, or FitTokens as the API counts them).
// A refusal without a count (Claude Code 2.0) is taken as a prompt right
// at the window. The refusal record itself is dropped: a trim answers
// it, and a second trim must not scale by it again.
func (p *planner) calibrate(rep *Report, refusal int) {
	est := p.estimate()
	if est <= 0 {
		return
	}
	c := p.g.refusalCount
	tokens, limit := c.Tokens, c.Limit
	if tokens <= 0 || limit <= 0 {
		tokens, limit = int64(rep.Window), int64(rep.Window)
	}
	budget := float64(p.opts.FitTokens)
	if budget <= 0 {
		budget = float64(limit) * p.opts.FitPercent / 100
	}
	rep.APITokens, rep.APILimit = c.Tokens, c.Limit
	rep.Calibrated = true
	rep.Target = max(1, int64(budget*float64(est)/float64(tokens)))
	p.drop(refusal)
}

// lastModel is the model of the last main-chain, non-synthetic assistant
// record: the one whose usage is the session's current context.
func (p *planner) lastModel() string {
	for i := len(p.g.recs) - 1; i >= 0; i-- {
		rc := &p.g.recs[i]
		if rc.typ == nameAssistant && rc.class == classChain && !rc.sidechain && !rc.synthetic && rc.model != nameEmpty {
			return p.g.names.text(rc.model)
		}
	}
	return ""
}

// estimate is bytes/4 of what a resume would send: the message content of
// the kept records on the active chain (attachments by what they render).
func (p *planner) estimate() int64 { return p.cur / 4 }

// drop marks record i dropped and keeps the running estimate.
func (p *planner) drop(i int) {
	if p.edits[i].drop {
		return
	}
	p.edits[i].drop = true
	if p.active[i] {
		p.cur -= p.send[i]
	}
}

// keep implements PolicyKeep.
func (p *planner) keep() {
	recs := p.g.recs
	firstHuman, finalText := -1, -1
	for i := range recs {
		rc := &recs[i]
		if rc.typ == nameUser && rc.class == classChain && rc.human && !rc.sidechain && firstHuman < 0 {
			firstHuman = i
		}
	}
	// The final assistant text of the last turn, on the active chain.
	for k := len(p.g.active) - 1; k >= 0; k-- {
		rc := &recs[p.g.active[k]]
		if rc.typ == nameUser && rc.human {
			break
		}
		if rc.typ == nameAssistant && rc.text && !rc.synthetic && rc.uses.n == 0 {
			finalText = p.g.active[k]
			break
		}
	}
	forced := make([]bool, len(recs))
	want := make([]bool, p.g.tools.len()) // tool ids whose pair is kept
	wantID := func(id tid) { want[id] = true }
	for i := range recs {
		rc := &recs[i]
		keep := false
		switch {
		case rc.class == classSkip:
		case rc.class != classChain || rc.sidechain:
			keep = true
		case rc.typ == nameSystem || rc.typ == nameAttachment:
			keep = true
		case rc.typ == nameProgress:
		case rc.typ == nameUser:
			switch {
			case rc.summary, i == firstHuman:
				keep = true
			case rc.results.n > 0, rc.human:
			default:
				keep = true // isMeta and harness-written text: small context the CLI wrote
			}
		case rc.typ == nameAssistant:
			keep = i == finalText
			for _, u := range p.g.usesOf(rc) {
				if u.read && !p.g.unpaired[u.id] && p.underKept(u.path) {
					want[u.id] = true
				}
			}
		}
		if keep {
			forced[i] = true
			p.g.ids(rc, wantID)
		}
	}
	// A record holding several tool blocks is kept or dropped whole, so
	// wanting one of its ids means wanting all of them.
	for changed := true; changed; {
		changed = false
		for i := range recs {
			rc := &recs[i]
			if p.g.nIDs(rc) < 2 {
				continue
			}
			any := false
			p.g.ids(rc, func(id tid) { any = any || want[id] })
			if !any {
				continue
			}
			p.g.ids(rc, func(id tid) {
				if !want[id] {
					want[id] = true
					changed = true
				}
			})
		}
	}
	for i := range recs {
		rc := &recs[i]
		keep := forced[i]
		if !keep && rc.class == classChain && !rc.sidechain {
			p.g.ids(rc, func(id tid) { keep = keep || want[id] })
		}
		if rc.class == classChain && p.g.hasUnpaired(rc) && !rc.sidechain {
			keep = false
		}
		p.edits[i].drop = !keep
	}
}

func (p *planner) underKept(path string) bool {
	if path == "" {
		return false
	}
	path = filepath.Clean(path)
	for _, k := range p.opts.KeepPaths {
		if path == k || strings.HasPrefix(path, strings.TrimSuffix(k, "/")+"/") {
			return true
		}
	}
	return false
}

// turns splits the active chain at human prompts. The head (before the
// first prompt: a compact boundary and its summary, say) is not a turn.
func (p *planner) turns() [][]int {
	var turns [][]int
	for _, i := range p.g.active {
		rc := &p.g.recs[i]
		if rc.typ == nameUser && rc.human {
			turns = append(turns, nil)
		}
		if len(turns) > 0 {
			turns[len(turns)-1] = append(turns[len(turns)-1], i)
		}
	}
	return turns
}

// fit implements PolicyFit.
func (p *planner) fit(target int64) error {
	recs := p.g.recs
	for i := range recs {
		if recs[i].class == classChain && !recs[i].sidechain && p.g.hasUnpaired(&recs[i]) {
			p.drop(i)
		}
	}
	if p.estimate() <= target {
		return nil
	}
	turns := p.turns()
	var older []int // active records of every turn but the last
	for k := 0; k+1 < len(turns); k++ {
		older = append(older, turns[k]...)
	}
	// 1. Thinking, oldest first; the last turn keeps its thinking because
	// the API wants it back while a tool loop is open.
	for _, i := range older {
		rc := &recs[i]
		if rc.typ == nameAssistant && rc.thinking && !rc.text && rc.uses.n == 0 && !p.edits[i].drop {
			p.drop(i)
			if p.estimate() <= target {
				return nil
			}
		}
	}
	// 2. Large tool results, oldest first, pairs intact.
	large := p.opts.LargeResult
	if large <= 0 {
		large = DefaultLargeResult
	}
	for _, i := range p.g.active {
		rc := &recs[i]
		if p.edits[i].drop || rc.typ != nameUser {
			continue
		}
		for _, r := range p.g.resultsOf(rc) {
			if r.size <= large {
				continue
			}
			p.edits[i].trimBlocks = append(p.edits[i].trimBlocks, int(r.block))
			d := int64(r.size - len(Marker(int64(r.size))) - 2)
			p.send[i] -= d
			p.saved[i] += d
			p.cur -= d
		}
		if len(p.edits[i].trimBlocks) > 0 && rc.turSize > int64(large) {
			p.edits[i].trimTUR = true
			p.saved[i] += rc.turSize - int64(len(Marker(rc.turSize))+2)
		}
		if p.estimate() <= target {
			return nil
		}
	}
	// 3. Whole turns, oldest first, never the last. Attachments and system
	// records stay: they are small and some carry the session's set-up.
	for k := 0; k+1 < len(turns); k++ {
		for _, i := range turns[k] {
			if t := recs[i].typ; t == nameUser || t == nameAssistant || t == nameProgress {
				p.drop(i)
			}
		}
		p.dropPartners(turns[k])
		if p.estimate() <= target {
			return nil
		}
	}
	return &FitError{Tokens: p.estimate(), Target: target}
}

// dropPartners drops the partner of every dropped tool block in the
// records idx, and so on transitively.
func (p *planner) dropPartners(idx []int) {
	work := append([]int(nil), idx...)
	for len(work) > 0 {
		i := work[len(work)-1]
		work = work[:len(work)-1]
		if !p.edits[i].drop {
			continue
		}
		p.g.ids(&p.g.recs[i], func(id tid) {
			u, r := p.g.useRec[id], p.g.resRec[id]
			if u < 0 || r < 0 {
				return
			}
			for _, j := range [2]int{int(u), int(r)} {
				if !p.edits[j].drop {
					p.drop(j)
					work = append(work, j)
				}
			}
		})
	}
}

// nearestKept returns the closest kept record at or above i, or -1.
func (p *planner) nearestKept(i int) int {
	for steps := 0; i >= 0 && p.edits[i].drop; steps++ {
		if steps > len(p.edits) {
			return -1
		}
		i = int(p.g.parent[i])
	}
	return i
}

// relink points every kept record at its nearest kept ancestor.
func (p *planner) relink() {
	recs := p.g.recs
	for i := range recs {
		rc := &recs[i]
		e := &p.edits[i]
		if e.drop {
			continue
		}
		if rc.uuid != 0 {
			if orig := int(p.g.parent[i]); orig >= 0 {
				if np := p.nearestKept(orig); np != orig {
					e.relink = true
					if np >= 0 {
						e.parent = recs[np].uuid
					}
				}
			}
			if rc.boundary && rc.logical != 0 {
				if j := int(p.g.recOf[rc.logical]); j >= 0 && p.edits[j].drop {
					e.relinkLogical = true
					if np := p.nearestKept(j); np >= 0 {
						e.logical = recs[np].uuid
					}
				}
			}
		}
		if rc.class == classNonChain && rc.leaf != 0 {
			if j := int(p.g.recOf[rc.leaf]); j >= 0 && p.edits[j].drop {
				if np := p.nearestKept(j); np >= 0 {
					e.relinkLeaf = true
					e.leaf = recs[np].uuid
				}
			}
		}
	}
}

// guardUnknown refuses to change a record holding a content block this
// code does not know.
func (p *planner) guardUnknown() error {
	if p.opts.AllowUnknown {
		return nil
	}
	for i := range p.g.recs {
		rc := &p.g.recs[i]
		e := &p.edits[i]
		if rc.unknown == nameEmpty {
			continue
		}
		if e.drop || e.relink || len(e.trimBlocks) > 0 || e.trimTUR {
			return p.g.formatError(rc, fmt.Sprintf("unknown content block type %q in a record the trim would change", p.g.names.text(rc.unknown)))
		}
	}
	return nil
}

func (p *planner) fillReport(rep *Report) {
	stats := map[string]*KindStat{}
	for i := range p.g.recs {
		rc := &p.g.recs[i]
		e := &p.edits[i]
		k := p.g.kindOf(rc)
		st := stats[k]
		if st == nil {
			st = &KindStat{Kind: k}
			stats[k] = st
		}
		switch {
		case e.drop:
			st.Dropped++
			st.DroppedBytes += rc.size
			rep.Changed = true
		default:
			rep.RecordsAfter++
			st.Kept++
			st.KeptBytes += rc.size
			if len(e.trimBlocks) > 0 || e.trimTUR {
				st.Trimmed++
				st.TrimmedBytes += p.saved[i]
				rep.Changed = true
			}
			if e.relink || e.relinkLeaf || e.relinkLogical {
				rep.Relinked++
				rep.Changed = true
			}
		}
	}
	for _, st := range stats {
		rep.Kinds = append(rep.Kinds, *st)
	}
	sort.Slice(rep.Kinds, func(a, b int) bool { return rep.Kinds[a].Kind < rep.Kinds[b].Kind })
}

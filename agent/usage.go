package agent

import "context"

// UsageCounter is an optional interface of a Reader: one that can count
// every token its agent spent, record by record, from the whole of each
// transcript (a list reads only their ends). It is optional because not
// every agent keeps per-response usage where tether can read it, and
// because the readers that do keep their counts in a cache of their own,
// beside the list's, so a warm count reads only what changed since.
type UsageCounter interface {
	// CountUsage returns every transcript's usage records, the
	// transcripts in the order the agent's files sort in (the order in
	// which a repeated record's first copy is found). Files it cannot
	// read are diagnostics, never an error; it fails only when the
	// storage root exists but cannot be read.
	CountUsage(ctx context.Context) ([]FileUsage, []Diagnostic, error)
}

// ArchiveUsageCounter is an optional interface of a reader of tether's
// archive (its ReaderConfig.Open the archive's opener): one that counts
// the usage of the stored copies whose originals the agent no longer
// has (a transcript Claude Code's cleanup deleted still cost money).
// Copies of what the agent still has are not read: the live count has
// them, and the two would only be deduplicated again.
type ArchiveUsageCounter interface {
	// CountArchivedUsage counts the stored copies under dir (the
	// archive's directory of the harness, mirroring the agent's own
	// layout) whose originals are gone; live is the live count of the
	// harness (an agent with a database tells a deleted session by its
	// id). Their records follow the live ones', so a response in both
	// counts once by the harness's deduplication.
	CountArchivedUsage(ctx context.Context, dir string, live []FileUsage) ([]FileUsage, []Diagnostic, error)
}

// Billing is how a record's tokens are priced.
type Billing uint8

const (
	// BillingPerRequest: the tiered ("above 200k tokens") prices apply to
	// each field of each record, and a 1-hour cache write costs twice the
	// input price (Anthropic's).
	BillingPerRequest Billing = iota
	// BillingFlat: no tiers; a cached input token costs the input price
	// when the model has no cache-read price (OpenAI's, as Codex logs it).
	BillingFlat
)

// FileUsage is what one transcript spent.
type FileUsage struct {
	Harness string
	// Path is the transcript; Session its session id; Project the
	// project it belongs to (Claude: the projects/ directory's name;
	// Codex: the session's cwd).
	Path, Session, Project string
	Billing                Billing
	Records                []UsageRecord
	// Skipped counts the lines that looked like usage but were not
	// counted (broken JSON, a field of the wrong type, an invalid id),
	// as the agent's usage reports skip them.
	Skipped int
	// Mark is where the count stopped (UsageResumer).
	Mark UsageMark
	// Folded counts the copies of responses FoldCopies folded into the
	// records that stand for them (duplicates, to a report).
	Folded int
}

// UsageMark is where a count of a transcript stopped, for a count that
// goes on from there: the file's size and modification time (Unix ns)
// when it was counted, the offset of its first line not counted, a
// fingerprint of its first bytes (a file rewritten in place no longer
// matches), and the counter's own state there. Again: the counter could
// not yet settle how the file's start counts, so it must be counted from
// its start.
type UsageMark struct {
	Size, MTime, Offset int64
	Head                uint64
	State               []byte
	Again               bool
}

// UsageResumer is an optional interface of a reader that counts usage
// (UsageCounter, ArchiveUsageCounter): one whose counts a caller may keep
// (sums, not records) and bring up to date by counting only what was
// appended since (tether usage's ledger).
type UsageResumer interface {
	// UsageVersion names the reader's counting rules: a caller's kept
	// counts made under other rules are made again.
	UsageVersion() string
	// UsageFiles are the files CountUsage counts (archiveDir ""), or
	// CountArchivedUsage(archiveDir, live), in the same order, without
	// records: each with its Mark's Size and MTime from a stat, and its
	// Project when its path names it. No file is opened.
	UsageFiles(ctx context.Context, archiveDir string, live []FileUsage) ([]FileUsage, []Diagnostic, error)
	// ResumeUsage counts f past f.Mark (a zero Mark: the whole file): f
	// with the records and skipped lines past the mark only, and the new
	// mark. ok is false when the file does not go on from the mark (it
	// was rewritten or shrank, or Mark.Again).
	ResumeUsage(f FileUsage) (counted FileUsage, ok bool, err error)
}

// UsageRecord is one response's tokens as the agent recorded them.
type UsageRecord struct {
	// Time is when it was recorded, Unix milliseconds.
	Time int64
	// Model is the model that answered ("" when none is named, as for
	// Claude's "<synthetic>" records: their tokens count, in no model).
	Model string
	// Key identifies the response across files (Claude: the message id
	// with the request id; Codex: the event's time, model and counts); 0
	// when it has none (never deduplicated). AltKey is a looser key a
	// sidechain copy is matched by (Claude: the message id alone).
	Key, AltKey uint64
	// Sidechain: a replayed copy, which loses to any other copy.
	Sidechain bool
	// Fast: served at the fast tier (priced at the model's fast
	// multiplier, reported as model + "-fast").
	Fast bool
	// The tokens: Input excludes cached input (Codex's cached input is
	// CacheRead); CacheWrite1h is the part of CacheWrite written for an
	// hour; Reasoning is a part of Output, shown, not priced again.
	Input, Output, CacheWrite, CacheWrite1h, CacheRead, Reasoning int64
	// Total is the agent's own total, when it gives one (Codex), else 0
	// (the sum of the fields).
	Total int64
	// CostUSD is the cost the agent recorded, when HasCost.
	CostUSD float64
	HasCost bool
	// Quirk: a record ccusage does not count though it is sound (Claude:
	// a null under one of its field names anywhere in the line, as in a
	// tool call's input). Counted only when corrections are asked for.
	Quirk bool
	// Folded: the record stands for several copies of its response in
	// its transcript (FoldCopies).
	Folded bool
}

// CopyTotal is the sum two copies of a response are compared by (the
// fuller copy is the one that counts).
func (u *UsageRecord) CopyTotal() int64 {
	return u.Input + u.Output + u.CacheWrite + u.CacheRead
}

// Tokens is the record's total: the agent's own when it gives one.
func (u *UsageRecord) Tokens() int64 {
	if u.Total > 0 {
		return u.Total
	}
	return u.Input + u.Output + u.CacheWrite + u.CacheRead
}

// Spend is a session's tokens and their cost (see tether usage).
type Spend struct {
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	TotalTokens         int64   `json:"totalTokens"`
	CostUSD             float64 `json:"costUSD"`
	// Unpriced: a model of the session has no price (counted at $0).
	Unpriced bool `json:"unpriced,omitempty"`
}

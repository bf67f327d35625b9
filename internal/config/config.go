// Package config is tether's configuration: its types and defaults. The
// TOML file is read and validated by internal/config/configfile, the one
// reader of its format, for tether and tether-hot alike.
package config

// Config is the whole configuration. Every field has a working default, so
// a missing file is the same as an empty one.
type Config struct {
	Log     Log     `toml:"log"`
	Catalog Catalog `toml:"catalog"`
	Hooks   Hooks   `toml:"hooks"`
	Wrap    Wrap    `toml:"wrap"`
	Prompt  Prompt  `toml:"prompt"`
	// StatusLine chains another statusLine command before tether's.
	StatusLine StatusLine `toml:"statusline"`
	Archive    Archive    `toml:"archive"`
	// Summarize configures session summaries (off until a provider is set).
	Summarize Summarize `toml:"summarize"`

	// Path is the file the configuration came from ("" when none existed).
	Path string `toml:"-"`
	// Unknown lists keys the file sets that this version does not know;
	// they are ignored (a newer tether may know them) and shown by doctor.
	Unknown []string `toml:"-"`
}

// Log configures the lifecycle log.
type Log struct {
	// Level is the minimum level written: debug, info, warn or error.
	// TETHER_LOG_LEVEL overrides it.
	Level string `toml:"level"`
	// MaxSizeMB is the size at which events.jsonl is rotated (one previous
	// file is kept).
	MaxSizeMB int `toml:"max_size_mb"`
}

// Catalog configures the session catalog.
type Catalog struct {
	// WorkRefs are the named regular expressions (Go RE2 syntax) that find
	// work references (ticket ids) in prompts, branches, commit messages
	// and paths. Setting the list replaces the defaults.
	WorkRefs []WorkRefRule `toml:"work_refs"`
	// Columns are the columns of every `tether sessions` table, in order,
	// or, as ["+cost"], the default ones with those added (see
	// ResolveColumns; empty: the default). --columns replaces them.
	Columns []string `toml:"columns"`
	// Cost adds the COST column (the session's spend) to Columns, as
	// --cost does; --cost=false leaves it out.
	Cost bool `toml:"cost"`
}

// WorkRefRule is one named pattern.
type WorkRefRule struct {
	Name    string `toml:"name"`
	Pattern string `toml:"pattern"`
}

// Wrap configures tether run.
type Wrap struct {
	// ExitLine prints one dim line on stderr when the program exits: the
	// session id, its context use and the command to resume it (only when
	// stderr is a terminal). TETHER_EXIT_LINE=0 turns it off too.
	ExitLine bool `toml:"exit_line"`
	// Threshold is the context use (percent of the window) at or above
	// which resuming a Claude session applies Policy; 0 turns it off.
	Threshold float64 `toml:"threshold"`
	// Policy is "trim" (trim the transcript to FitPercent first, keeping a
	// backup) or "fresh" (start a new session instead).
	Policy     string  `toml:"policy"`
	FitPercent float64 `toml:"fit_percent"`
	// Handoff passes a summary of a session that could not be resumed to
	// the fresh one that replaces it (Claude only).
	Handoff bool `toml:"handoff"`
}

// Archive configures the archive of transcripts (tether archive).
type Archive struct {
	// Enabled keeps every transcript in the archive (default true).
	Enabled bool `toml:"enabled"`
	// Mode is "link" (hard links, falling back to copies across file
	// systems) or "copy" (zstd copies).
	Mode string `toml:"mode"`
	// Dir overrides $XDG_DATA_HOME/tether/archive; "~/" is expanded.
	Dir string `toml:"dir"`
}

// Hooks configures the hook command and the statusLine.
type Hooks struct {
	// SelfReport makes the Stop hook parse a "[ctx: ~NN%]" self-report
	// from the last assistant message and log it next to the real usage.
	SelfReport bool `toml:"self_report"`
	// Windows maps a model id (or an id prefix) to its context window in
	// tokens, overriding the built-in table. The window a statusLine
	// reported for a session wins over both.
	Windows map[string]int64 `toml:"windows"`
	// TailMaxKiB caps how much of a transcript's end one hook reads to
	// find the last usage.
	TailMaxKiB int64 `toml:"tail_max_kib"`
}

// StatusLine is [statusline]: run the user's own statusLine command (the
// one a forced 'hooks install --statusline' replaced, or Command) with the
// same stdin and put tether's segment beside its output.
type StatusLine struct {
	// Chain runs the previous statusLine that hooks install recorded.
	Chain bool `toml:"chain"`
	// Command, when set, is the command to chain (run with sh -c),
	// whether or not Chain is set.
	Command string `toml:"command"`
	// TimeoutMS bounds the chained command; past it tether's segment is
	// printed alone.
	TimeoutMS int `toml:"timeout_ms"`
	// Segments are drawn in this order, joined by " · ". Empty: model and
	// context.
	Segments []string `toml:"segments"`
}

// Summarize configures tether sessions summarize.
type Summarize struct {
	// Provider is claude, codex, opencode, anthropic or command; "" (the default)
	// means no summaries: they cost money, so the user opts in.
	Provider string `toml:"provider"`
	// Model overrides the provider's default (a small model).
	Model string `toml:"model"`
	// Command is the argv of the command provider.
	Command []string `toml:"command"`
	// Auto summarizes a session in the background after SessionEnd.
	Auto bool `toml:"auto"`
	// BudgetTokens bounds the input (about 4 characters a token).
	BudgetTokens int `toml:"budget_tokens"`
	// Concurrency is how many sessions are summarized at once.
	Concurrency int `toml:"concurrency"`
	// TimeoutSeconds bounds one provider call.
	TimeoutSeconds int `toml:"timeout_seconds"`
}

// Default returns the configuration used when no file sets anything.
func Default() Config {
	return Config{
		Log:   Log{Level: "info", MaxSizeMB: 10},
		Hooks: Hooks{TailMaxKiB: 4096},
		Wrap:  Wrap{ExitLine: true, Threshold: 90, Policy: "trim", FitPercent: 60},
		Catalog: Catalog{WorkRefs: []WorkRefRule{
			{Name: "INIT", Pattern: `\bINIT-[A-Z0-9]+-\d{3}\b`},
			{Name: "RMI", Pattern: `\bRMI-[A-Z0-9]+-\d{3}\b`},
		}},
		Prompt:     DefaultPrompt(),
		StatusLine: StatusLine{TimeoutMS: 1000},
		Archive:    Archive{Enabled: true, Mode: "link"},
		Summarize:  Summarize{BudgetTokens: 8000, Concurrency: 2, TimeoutSeconds: 300},
	}
}

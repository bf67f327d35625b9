package usage

// The --json form of a report (schema: catalog/schema/usage.schema.json).

// TokensJSON are a row's sums.
type TokensJSON struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	// CacheCreationTokens are cache writes; CacheReadTokens cache reads
	// (Codex's cached input); InputTokens exclude both.
	CacheCreationTokens int64 `json:"cacheCreationTokens"`
	CacheReadTokens     int64 `json:"cacheReadTokens"`
	// ReasoningOutputTokens are part of OutputTokens.
	ReasoningOutputTokens int64   `json:"reasoningOutputTokens"`
	TotalTokens           int64   `json:"totalTokens"`
	CostUSD               float64 `json:"costUSD"`
}

// ModelJSON is one model's part of a row.
type ModelJSON struct {
	Model string `json:"model"`
	TokensJSON
}

// RowJSON is one row: its key is the field named after the report.
type RowJSON struct {
	Period  string `json:"period,omitempty"`
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Model   string `json:"model,omitempty"`
	TokensJSON
	// Models are the models used, costliest first.
	Models    []string `json:"models"`
	Harnesses []string `json:"harnesses"`
	// ModelBreakdowns is there with --breakdown.
	ModelBreakdowns []ModelJSON `json:"modelBreakdowns,omitempty"`
}

// TotalsJSON are the report's totals, and each harness's.
type TotalsJSON struct {
	TokensJSON
	ByHarness map[string]TokensJSON `json:"byHarness"`
}

// PricingJSON says where the prices came from.
type PricingJSON struct {
	Source string `json:"source"`
	Taken  string `json:"taken,omitempty"`
	Models int    `json:"models"`
}

// JSON is `tether usage --json`: the rows under the report's name.
type JSON struct {
	Daily    []RowJSON `json:"daily,omitempty"`
	Weekly   []RowJSON `json:"weekly,omitempty"`
	Monthly  []RowJSON `json:"monthly,omitempty"`
	Sessions []RowJSON `json:"sessions,omitempty"`
	Projects []RowJSON `json:"projects,omitempty"`
	Models   []RowJSON `json:"models,omitempty"`
	// Report names the report (the key its rows are under).
	Report string     `json:"report"`
	Totals TotalsJSON `json:"totals"`
	// UnpricedModels have tokens but no price (counted at $0).
	UnpricedModels []string    `json:"unpricedModels"`
	Pricing        PricingJSON `json:"pricing"`
	// SkippedLines are usage lines not counted (broken, of the wrong
	// shape, invalid); DuplicateRecords copies of a record counted once.
	SkippedLines     int `json:"skippedLines"`
	DuplicateRecords int `json:"duplicateRecords"`
}

func tokensJSON(t Tokens) TokensJSON {
	return TokensJSON{InputTokens: t.Input, OutputTokens: t.Output, CacheCreationTokens: t.CacheWrite,
		CacheReadTokens: t.CacheRead, ReasoningOutputTokens: t.Reasoning, TotalTokens: t.Total, CostUSD: t.CostUSD}
}

// ToJSON is rep's --json form.
func ToJSON(rep Report, p *Pricing) JSON {
	out := JSON{Report: string(rep.Kind), Totals: TotalsJSON{TokensJSON: tokensJSON(rep.Totals), ByHarness: map[string]TokensJSON{}},
		UnpricedModels: append([]string{}, rep.Unpriced...), Pricing: PricingJSON{Source: p.Source, Taken: p.Taken, Models: p.Len()},
		SkippedLines: rep.Skipped, DuplicateRecords: rep.Duplicates}
	for h, t := range rep.ByHarness {
		out.Totals.ByHarness[h] = tokensJSON(t)
	}
	rows := make([]RowJSON, 0, len(rep.Rows))
	for _, r := range rep.Rows {
		row := RowJSON{TokensJSON: tokensJSON(r.Tokens), Models: append([]string{}, r.Models...), Harnesses: r.Harnesses}
		switch rep.Kind {
		case Sessions:
			row.Session = r.Key
		case Projects:
			row.Project = r.Key
		case Models:
			row.Model = r.Key
		default:
			row.Period = r.Key
		}
		for _, m := range r.Breakdown {
			row.ModelBreakdowns = append(row.ModelBreakdowns, ModelJSON{Model: m.Model, TokensJSON: tokensJSON(m.Tokens)})
		}
		rows = append(rows, row)
	}
	switch rep.Kind {
	case Weekly:
		out.Weekly = rows
	case Monthly:
		out.Monthly = rows
	case Sessions:
		out.Sessions = rows
	case Projects:
		out.Projects = rows
	case Models:
		out.Models = rows
	default:
		out.Daily = rows
	}
	return out
}

package catalog

// ListOutput is the --json output of `tether sessions list`.
type ListOutput struct {
	Sessions    []Session    `json:"sessions"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// SearchOutput is the --json output of `tether sessions search`.
type SearchOutput struct {
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
}

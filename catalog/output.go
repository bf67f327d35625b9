package catalog

// ListOutput is the --json output of `tether sessions list`.
type ListOutput struct {
	Sessions    []Session    `json:"sessions"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// SearchOutput is the --json output of `tether sessions search`.
type SearchOutput struct {
	Query string `json:"query"`
	// Engine is what answered: the full-text index, or (when the index
	// cannot be opened) a scan of every transcript.
	Engine  string         `json:"engine" jsonschema:"enum=index,enum=stream"`
	Results []SearchResult `json:"results"`
}

package config

// StatuslineSegments are the segment names `tether statusline` draws.
var StatuslineSegments = []string{"model", "context", "branch", "cost", "today"}

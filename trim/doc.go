// Package trim rewrites a Claude Code transcript so that it resumes again:
// it keeps a skeleton of the session (the keep policy) or shrinks the
// conversation oldest-first until it fits a share of the context window
// (the fit policy), validates the result as Claude Code would load it, and
// replaces the file atomically with a backup, never while the session runs.
package trim

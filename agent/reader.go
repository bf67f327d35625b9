package agent

import (
	"context"
	"io"
	"io/fs"
	"os"
	"regexp"
)

// Reader reads one harness's sessions.
type Reader interface {
	Harness() string
	// List returns every session cheaply: a bounded number of bytes per
	// file, cached by (path, size, mtime). Files it cannot understand are
	// returned as diagnostics. It fails only when the storage root exists
	// but cannot be read.
	List(ctx context.Context, opts ListOptions) ([]Session, []Diagnostic, error)
	// Get fully reads one listed session: counts, recent prompts, context
	// curve and evidence.
	Get(ctx context.Context, s Session) (Session, error)
}

// ListOptions narrow what a reader returns.
type ListOptions struct {
	// All includes archived sessions.
	All bool
}

// File is what readers need from an open file; tests swap the opener to
// count bytes.
type File interface {
	io.ReaderAt
	io.Reader
	io.Closer
	Stat() (fs.FileInfo, error)
}

// Opener opens a file for reading.
type Opener func(name string) (File, error)

// OSOpen opens files on the real file system.
func OSOpen(name string) (File, error) { return os.Open(name) }

// WorkRule is a named regular expression for work references (ticket ids).
type WorkRule struct {
	Name    string
	Pattern *regexp.Regexp
}

// DefaultWorkRules are used when the config names none.
func DefaultWorkRules() []WorkRule {
	return []WorkRule{
		{Name: "INIT", Pattern: regexp.MustCompile(`\bINIT-[A-Z0-9]+-\d{3}\b`)},
		{Name: "RMI", Pattern: regexp.MustCompile(`\bRMI-[A-Z0-9]+-\d{3}\b`)},
	}
}

// Package identity decides which directory a session belongs to.
//
// Every later feature (the catalog, the wrapper, hooks, the prompt segment)
// keys sessions on one canonical spelling of the starting directory, the
// identity root. Two spellings of the same directory (a trailing slash, a
// symlinked parent, a "..", an NFD file name) must give the same root, and a
// root, once computed, must not drift when the process later changes
// directory.
package identity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// EnvRoot is exported by the wrapper so that every process it starts (the
// agent, its hooks, their children) shares one root.
const EnvRoot = "TETHER_IDENTITY_ROOT"

// Root is the canonical identity of a directory.
type Root struct {
	// Raw is the path as it was given (or the working directory).
	Raw string `json:"raw"`
	// Path is the canonical key: absolute, clean, symlinks resolved, NFC.
	Path string `json:"root"`
	// Dir is the resolved path as it is spelled on disk. It differs from
	// Path only when the file system stores a non-NFC name; use it, not
	// Path, to chdir.
	Dir string `json:"dir"`
	// FellBack is set when symlinks could not be resolved (missing path,
	// permission denied) and Path is the cleaned raw path instead.
	FellBack bool `json:"fellBack"`
	// Reason says why resolution fell back.
	Reason string `json:"fallbackReason,omitempty"`
	// Pinned is set when the root came from TETHER_IDENTITY_ROOT.
	Pinned bool `json:"pinned"`
	// IgnoredPin says why a TETHER_IDENTITY_ROOT was not used (relative,
	// not clean, holding a NUL) and the root recomputed instead.
	IgnoredPin string `json:"ignoredPin,omitempty"`
}

// Resolve computes the identity root of path. A relative path is taken
// relative to the working directory. It never fails: when the path cannot
// be resolved the cleaned path is used and FellBack says so.
func Resolve(path string) Root {
	r := Root{Raw: path}
	abs := path
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			// Without a working directory a relative path has no meaning;
			// keep it clean so that at least equal inputs give equal roots.
			r.FellBack, r.Reason = true, "working directory unknown: "+err.Error()
			r.Dir = filepath.Clean(path)
			r.Path = nfc(r.Dir)
			return r
		}
		abs = filepath.Join(wd, abs)
	}
	clean := filepath.Clean(abs)
	resolved, err := filepath.EvalSymlinks(clean)
	if err != nil {
		r.FellBack, r.Reason = true, fallbackReason(err)
		resolved = clean
	}
	r.Dir = resolved
	r.Path = nfc(resolved)
	return r
}

// Pinned returns the root for this process tree: the value of
// TETHER_IDENTITY_ROOT when a parent already pinned one (used verbatim, never
// recomputed), else the resolved working directory.
//
// Only an absolute, clean path without NUL is taken from the environment
// (CheckPinned); any other value is ignored, the root recomputed and
// IgnoredPin says why, for the caller to log.
func Pinned(getenv func(string) string) Root {
	ignored := ""
	if v := getenv(EnvRoot); v != "" {
		err := CheckPinned(v)
		if err == nil {
			return Root{Raw: v, Path: v, Dir: v, Pinned: true}
		}
		ignored = err.Error()
	}
	r := fromWorkingDir(getenv)
	r.IgnoredPin = ignored
	return r
}

// CheckPinned accepts a TETHER_IDENTITY_ROOT value only when it is an
// absolute, clean path (filepath.Clean leaves it unchanged) without NUL:
// anything else would file sessions under a root no resolution produces.
func CheckPinned(v string) error {
	switch {
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("$%s holds a NUL byte", EnvRoot)
	case !filepath.IsAbs(v):
		return fmt.Errorf("$%s is not an absolute path: %q", EnvRoot, v)
	case filepath.Clean(v) != v:
		return fmt.Errorf("$%s is not a clean path: %q (clean: %q)", EnvRoot, v, filepath.Clean(v))
	}
	return nil
}

// fromWorkingDir resolves the working directory.
func fromWorkingDir(getenv func(string) string) Root {
	// PWD keeps the spelling the user typed (through symlinks), which is
	// what they see; Resolve canonicalises it anyway. Getwd is the fallback
	// when PWD is unset or stale.
	wd := getenv("PWD")
	if wd == "" || !sameFile(wd, ".") {
		var err error
		if wd, err = os.Getwd(); err != nil {
			wd = "."
		}
	}
	return Resolve(wd)
}

// Equal reports whether two paths name the same identity root.
func Equal(a, b string) bool {
	return Resolve(a).Path == Resolve(b).Path
}

func nfc(s string) string { return norm.NFC.String(s) }

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

func fallbackReason(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "path does not exist"
	case errors.Is(err, os.ErrPermission):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}

// Spellings returns the paths that could have been used to start a session
// in root's directory and that the caller knows of: the canonical path, the
// on-disk spelling, and the raw path with and without cleaning.
func (r Root) Spellings() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(r.Path)
	add(r.Dir)
	add(r.Raw)
	add(filepath.Clean(r.Raw))
	add(nfc(filepath.Clean(r.Raw)))
	return out
}

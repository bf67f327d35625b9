package identity

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Memo resolves many paths as Resolve does, remembering each directory's
// resolution: a path whose parent was resolved before costs one lstat,
// not one per component (a listing of 10,000 sessions resolved ~300
// distinct working directories six components deep: ~1,500 lstats, where
// most share a few parents). Its answers are Resolve's as long as the file
// system does not change while it is used, so keep one for one pass (a
// listing), not longer. Safe for concurrent use; the zero value is ready.
type Memo struct {
	mu   sync.RWMutex
	dirs map[string]memoDir // clean absolute path → its resolution
}

// memoDir is a path resolved: the resolved path, or ok false when it
// could not be resolved (Resolve falls back to the clean path).
type memoDir struct {
	path string
	ok   bool
}

// Path is Resolve(path).Path.
func (m *Memo) Path(path string) string {
	if !filepath.IsAbs(path) {
		return Resolve(path).Path // relative to the working directory
	}
	clean := filepath.Clean(path)
	if r, ok := m.resolve(clean); ok {
		return nfc(r)
	}
	return nfc(clean)
}

// resolve is filepath.EvalSymlinks(clean), by way of its parent's
// resolution: a plain directory as the last component adds nothing to
// resolve, and a symlink resolves as its target does (EvalSymlinks reads
// a relative target against the resolved parent, as here; see
// lexicalTarget for "..").
// Anything else — a file, a missing or unreadable path, a chain of more
// than maxMemoLinks links — is resolved by EvalSymlinks itself, which
// then decides exactly as Resolve does.
func (m *Memo) resolve(clean string) (string, bool) { return m.resolveN(clean, 0) }

// lexicalTarget reports whether a link's target may be cleaned before it
// is resolved: a ".." after another component must be taken against what
// that component resolves to (a symlink's target's parent), which
// cleaning would not do. Leading ".." of a relative target apply to the
// resolved parent, which has no symlinks left: cleaning them is exact.
func lexicalTarget(t string) bool {
	if t == "" {
		return false
	}
	rest := t
	if !filepath.IsAbs(t) {
		for {
			r, ok := strings.CutPrefix(rest, "../")
			if !ok {
				break
			}
			rest = strings.TrimLeft(r, "/")
		}
	}
	for _, el := range strings.Split(rest, "/") {
		if el == ".." {
			return false
		}
	}
	return true
}

// maxMemoLinks bounds the links resolveN follows (a loop ends there, in
// EvalSymlinks, which reports it).
const maxMemoLinks = 16

func (m *Memo) resolveN(clean string, links int) (string, bool) {
	m.mu.RLock()
	d, hit := m.dirs[clean]
	m.mu.RUnlock()
	if hit {
		return d.path, d.ok
	}
	d = memoDir{}
	if parent := filepath.Dir(clean); parent != clean {
		if p, ok := m.resolveN(parent, links); ok {
			cand := filepath.Join(p, filepath.Base(clean))
			fi, err := os.Lstat(cand)
			switch {
			case err != nil:
			case fi.IsDir():
				d = memoDir{cand, true}
			case fi.Mode()&os.ModeSymlink != 0 && links < maxMemoLinks:
				if t, err := os.Readlink(cand); err == nil && lexicalTarget(t) {
					if !filepath.IsAbs(t) {
						t = filepath.Join(p, t)
					}
					d.path, d.ok = m.resolveN(filepath.Clean(t), links+1)
				}
			}
		}
	}
	if !d.ok {
		r, err := filepath.EvalSymlinks(clean)
		d = memoDir{r, err == nil}
	}
	m.mu.Lock()
	if m.dirs == nil {
		m.dirs = map[string]memoDir{}
	}
	m.dirs[clean] = d
	m.mu.Unlock()
	return d.path, d.ok
}

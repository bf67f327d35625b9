package evidence

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/tether-dev/tether/identity"
)

// RootMemo resolves each distinct cwd to its identity root and its
// repository's origin id once per listing. A Catalog's listing shares one
// between its readers (Shared), so a directory both agents worked in is
// resolved once. The repository lookup is memoised per directory walked,
// so cwds under one parent stat that parent's ".git" once, not once each
// (a warm list of 10,000 sessions spent ~15 ms of CPU in those stats),
// and the origin is read only for the readers that show it.
type RootMemo struct {
	// Shared, when set, is the memo this one defers to.
	Shared *RootMemo

	// mu is read-locked for lookups: the readers' workers look up every
	// session's cwd, and with a plain mutex they spun on each other
	// (~5 ms of a warm list at 10,000 sessions).
	mu      sync.RWMutex
	roots   map[string]string // cwd → identity root
	repos   map[string]string // directory → repository root holding it ("": none)
	origins map[string]string // repository root → origin id
}

func (r *RootMemo) memo() *RootMemo {
	if r.Shared != nil {
		return r.Shared
	}
	return r
}

// cached returns m[k] under the lock.
func (r *RootMemo) cached(m *map[string]string, k string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := (*m)[k]
	return v, ok
}

// keep stores m[k] = v under the lock. The work is done outside it, so
// readers resolving different directories do not wait on each other's
// system calls; two resolving the same one get the same answer.
func (r *RootMemo) keep(m *map[string]string, k, v string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = v
}

// Get is cwd's identity root.
func (r *RootMemo) Get(cwd string) string {
	if cwd == "" {
		return ""
	}
	m := r.memo()
	if v, ok := m.cached(&m.roots, cwd); ok {
		return v
	}
	v := identity.Resolve(cwd).Path
	m.keep(&m.roots, cwd, v)
	return v
}

// Origin is the origin id of the repository holding cwd.
func (r *RootMemo) Origin(cwd string) string {
	if cwd == "" {
		return ""
	}
	m := r.memo()
	root := m.repoRoot(cwd)
	if root == "" {
		return ""
	}
	if v, ok := m.cached(&m.origins, root); ok {
		return v
	}
	v := originID(root)
	m.keep(&m.origins, root, v)
	return v
}

// repoRoot is repoRoot(dir), remembering the answer for every directory
// it walked through on the way up.
func (r *RootMemo) repoRoot(dir string) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	var walked []string
	root := ""
	for d := filepath.Clean(dir); ; {
		if v, ok := r.cached(&r.repos, d); ok {
			root = v
			break
		}
		walked = append(walked, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for _, d := range walked {
		r.keep(&r.repos, d, root)
	}
	return root
}

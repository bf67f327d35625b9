package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
)

// linkGuard decides which symlinks in projects/ a listing follows. A
// dotfiles setup links transcripts, or whole project directories, into
// projects/ (issue 23: skipping every non-regular entry hid them, and
// 'tether trim ID' could not find them). A link is followed to a regular
// file or a directory; one that cannot be (dangling, a loop: ELOOP) is
// skipped as before. Only one level of directories is read, so a link to
// an ancestor cannot recurse; a link resolving to what the listing reads
// anyway (a sibling in projects/, or a target already followed) is
// skipped, so no session is listed twice.
type linkGuard struct {
	projects string
	real     string // projects with symlinks resolved; "" until needed
	seen     map[string]bool
}

// dir reports whether entry e of projects is a directory to list.
func (g *linkGuard) dir(e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	return e.Type()&fs.ModeSymlink != 0 && g.follow(filepath.Join(g.projects, e.Name()), 1, true)
}

// file reports whether entry e of project directory dir is a transcript
// to read (its name was checked by the caller).
func (g *linkGuard) file(dir string, e fs.DirEntry) bool {
	if e.Type().IsRegular() {
		return true
	}
	return e.Type()&fs.ModeSymlink != 0 && g.follow(filepath.Join(dir, e.Name()), 2, false)
}

// follow reports whether link resolves to a directory (wantDir) or a
// regular file that is not depth levels below projects itself.
func (g *linkGuard) follow(link string, depth int, wantDir bool) bool {
	fi, err := os.Stat(link)
	if err != nil || (wantDir && !fi.IsDir()) || (!wantDir && !fi.Mode().IsRegular()) {
		return false
	}
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return false
	}
	if g.real == "" {
		if g.real, err = filepath.EvalSymlinks(g.projects); err != nil {
			g.real = g.projects
		}
	}
	up := real
	for range depth {
		up = filepath.Dir(up)
	}
	if up == g.real || g.seen[real] {
		return false
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	g.seen[real] = true
	return true
}

package scan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tether-dev/tether/agent/filecache"
)

// Directory skip. A warm list takes a project directory's file list and
// its transcripts' cached summaries without listing it or stat-ing them
// when all of these hold:
//   - the directory's mtime is the recorded one: no file was created,
//     removed or renamed in it since (the mtime is read before the listing,
//     and one within DirRacyWindow of the listing is not trusted, so a
//     change during the listing is not missed);
//   - its newest transcript was modified more than DirHotWindow ago:
//     Claude Code appends to a live transcript in place, which changes the
//     file's mtime but not the directory's;
//   - it was fully checked less than DirRecheck ago.
//
// A transcript that may be running (claude.LiveSet: its sessions/<pid>.json,
// a process started for it or holding it open, a Claude Code process in
// its project) is stat-ed even in a trusted directory. The trade-off: an append to a transcript
// idle for more than a day, made by a process no longer running, in a
// directory nothing else changed, shows within DirRecheck (one full
// stat-ing list an hour) instead of at once.
const (
	DirHotWindow  = 24 * time.Hour
	DirRecheck    = time.Hour
	DirRacyWindow = 2 * time.Second
)

// KeepHotRecord is the record to store for a directory this listing read
// (fresh) when it had one before (old, compared when cmp): a directory
// written in the last day is not trusted whatever its record, so while it
// stays so and nothing in the record but the check time changed, the old
// record is kept — the cache is not rewritten for a new check time alone.
func KeepHotRecord(fresh, old filecache.DirRecord, cmp bool, now int64) filecache.DirRecord {
	if cmp && old.MTime == fresh.MTime && old.Newest == fresh.Newest &&
		slices.Equal(old.Files, fresh.Files) && now-fresh.Newest <= int64(DirHotWindow) {
		return old
	}
	return fresh
}

// JoinRoom is the capacity a reader gives the slice of its n sessions, so
// joinSessions can append the other readers' and the archive's to it
// without copying it.
func JoinRoom(n int) int { return n + n/4 + 64 }

// DirStats are the mtimes of the live directories a listing's readers
// stat-ed (before listing them), for the archive's pass, which checks the
// same directories (~300 stats a warm list at 10,000 sessions): a change
// after the reader's stat shows in the next listing's.
type DirStats struct {
	mu sync.Mutex
	m  map[string]int64
}

// Put records dir's mtime as a reader read it.
func (d *DirStats) Put(dir string, mtime int64) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]int64{}
	}
	d.m[dir] = mtime
}

// Mtime is dir's mtime as a reader read it, or else as a stat reads it
// now (ok false when it cannot be read).
func (d *DirStats) Mtime(dir string) (int64, bool) {
	if d != nil {
		d.mu.Lock()
		m, ok := d.m[dir]
		d.mu.Unlock()
		if ok {
			return m, true
		}
	}
	return MtimeOf(dir)
}

// MtimeOf is path's mtime (UnixNano), or ok false when it cannot be
// stat-ed.
func MtimeOf(path string) (int64, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return fi.ModTime().UnixNano(), true
}

// IsNotExist reports whether err says a file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// SplitPath is filepath.Dir and filepath.Base of p, without Clean's work
// when p is already a clean absolute path with a parent (every listed
// source the readers build): a warm list splits 10,000 of them twice.
func SplitPath(p string) (dir, base string) {
	if i := strings.LastIndexByte(p, '/'); i > 0 && cleanAbs(p) {
		return p[:i], p[i+1:]
	}
	return filepath.Dir(p), filepath.Base(p)
}

// PathSplitter is SplitPath for paths that mostly share their directory
// with the path before them (a listing's sources, grouped by directory):
// a path in the directory of the last one split by the fast path is
// recognised by comparing that prefix and looking forward for a slash,
// both vector scans, where LastIndexByte and cleanAbs walk every byte
// (two passes over a listing's 10,000 sources cost ~4 ms).
type PathSplitter struct{ dir string }

// Split is SplitPath(p).
func (ps *PathSplitter) Split(p string) (dir, base string) {
	if d := ps.dir; d != "" && len(p) > len(d)+1 && p[len(d)] == '/' && p[:len(d)] == d {
		// d is clean and absolute (not "/"), so p is too when its last
		// element is a plain name: SplitPath's fast path, same answer.
		if name := p[len(d)+1:]; strings.IndexByte(name, '/') < 0 && name != "." && name != ".." {
			return d, name
		}
	}
	if i := strings.LastIndexByte(p, '/'); i > 0 && cleanAbs(p) {
		ps.dir = p[:i]
		return p[:i], p[i+1:]
	}
	ps.dir = ""
	return SplitPath(p)
}

// cleanAbs reports whether p is absolute and filepath.Clean would leave it
// unchanged: no empty, "." or ".." element and no trailing slash.
func cleanAbs(p string) bool {
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if p[i-1] != '/' {
			continue
		}
		switch rest := p[i:]; {
		case rest[0] == '/':
			return false
		case rest == "." || strings.HasPrefix(rest, "./"), rest == ".." || strings.HasPrefix(rest, "../"):
			return false
		}
	}
	return true
}

// JoinNames appends filepath.Join(dir, name) for each name read from dir
// (no separator, not "." or ".."), without Clean's work per path when dir
// is clean and absolute.
func JoinNames(paths []string, dir string, names []string) []string {
	clean := cleanAbs(dir)
	// The directory's paths share one allocation (a warm list joins
	// 10,000, one allocation each): its room is every path's length, so
	// it never moves and the strings viewing it stay valid.
	room := 0
	for _, name := range names {
		room += len(dir) + 1 + len(name)
	}
	buf := make([]byte, 0, room)
	for _, name := range names {
		if clean && name != "" && name != "." && name != ".." && !strings.Contains(name, "/") {
			start := len(buf)
			buf = append(append(append(buf, dir...), '/'), name...)
			paths = append(paths, BytesString(buf[start:], true))
		} else {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	return paths
}

// LinkGuard decides which symlinks in projects/ a listing follows. A
// dotfiles setup links transcripts, or whole project directories, into
// projects/ (issue 23: skipping every non-regular entry hid them, and
// 'tether trim ID' could not find them). A link is followed to a regular
// file or a directory; one that cannot be (dangling, a loop: ELOOP) is
// skipped as before. Only one level of directories is read, so a link to
// an ancestor cannot recurse; a link resolving to what the listing reads
// anyway (a sibling in projects/, or a target already followed) is
// skipped, so no session is listed twice.
type LinkGuard struct {
	projects string
	real     string // projects with symlinks resolved; "" until needed
	seen     map[string]bool
}

// Dir reports whether entry e of projects is a directory to list.
func (g *LinkGuard) Dir(e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	return e.Type()&fs.ModeSymlink != 0 && g.follow(filepath.Join(g.projects, e.Name()), 1, true)
}

// File reports whether entry e of project directory dir is a transcript
// to read (its name was checked by the caller).
func (g *LinkGuard) File(dir string, e fs.DirEntry) bool {
	if e.Type().IsRegular() {
		return true
	}
	return e.Type()&fs.ModeSymlink != 0 && g.follow(filepath.Join(dir, e.Name()), 2, false)
}

// NewLinkGuard is the guard of a listing of projects.
func NewLinkGuard(projects string) *LinkGuard { return &LinkGuard{projects: projects} }

// follow reports whether link resolves to a directory (wantDir) or a
// regular file that is not depth levels below projects itself.
func (g *LinkGuard) follow(link string, depth int, wantDir bool) bool {
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

package catalog

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tether-dev/tether/agent/scan"
	"github.com/tether-dev/tether/archive"
)

// Archive is what the catalog knows of tether's archive: one source per
// harness, and a callback that archives what a listing found.
type Archive struct {
	Sources []ArchiveSource
	// Sync, when set, archives new and grown transcripts of the live
	// sessions it is given and reports, per session in order, whether its
	// stored file is now current; it returns nil when it archived nothing
	// (another process holds the archive). A listing gives it only the
	// sessions of directories that changed since they were last all
	// current (see archiveState).
	Sync func(live []Session) []Synced
	// SyncKey names the archive Sync writes to (its directory and mode):
	// what was recorded as current for another key is not trusted.
	SyncKey string
	// State is the file of those records (a cache); "" keeps none, so
	// every listing syncs every session.
	State string
}

// Synced is what Sync did with one session.
type Synced struct {
	// OK: the stored file is current (or the live file is gone).
	OK bool
	// Linked: the stored file is a hard link to the live one, so appends
	// need no further sync.
	Linked bool
	// MTime is the live file's mtime (UnixNano) when it was archived.
	MTime int64
}

// ArchiveSource is one harness's part of the archive. Stored files mirror
// the agent's own layout: Dir/<rel> is the archived Root/<rel>.
type ArchiveSource struct {
	Dir  string
	Root string
	// Reader is a reader of the harness (its Open set to ArchiveOpen, its
	// Cache a separate file); Dir and Procs are not used.
	Reader Reader
	// RestoreTo, when set, is where every stored file of the source goes
	// back to: an agent's database, through the agent's own import (the
	// stored files are its exports, mirroring no file under Root).
	RestoreTo string

	// resolved is Root with symlinks resolved when that differs ("" when
	// not, or not known): the spelling Codex records its rollouts under
	// when CODEX_HOME is reached through a symlink.
	resolved string
}

// resolveRoots notes each source root's resolved spelling (resolved).
func (a *Archive) resolveRoots() {
	for i := range a.Sources {
		src := &a.Sources[i]
		if src.Root == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(src.Root); err == nil && r != filepath.Clean(src.Root) {
			src.resolved = r
		}
	}
}

// ArchiveCacheFiles are the caches of what the archive readers learn
// (Claude Code, Codex) and of Archive.State, in that order.
func ArchiveCacheFiles(dir string) []string {
	return []string{ArchiveCacheFile(dir, ClaudeCode), ArchiveCacheFile(dir, Codex), filepath.Join(dir, "catalog-archive-state.gob")}
}

// ArchiveCacheFile is the cache file under dir of harness's archive
// reader.
func ArchiveCacheFile(dir, harness string) string {
	return filepath.Join(dir, "catalog-archive-"+harness+".gob")
}

// archivePass is the archive's part of one listing. What does not
// depend on the live sessions — loading the records and walking the
// archive directories — runs beside the harness readers (begin); the
// rest once they are done (finish).
type archivePass struct {
	a    *Archive
	done chan struct{}
	st   *archiveState
	// found are the archive directories holding files, per source.
	found [][]archiveDir
	// stats are the live directories' mtimes the readers read (nil: none).
	stats *scan.DirStats
}

// archiveDir is one archive directory the walk found files in.
type archiveDir struct {
	dir   string
	names []string
}

// begin loads the records and walks the archive in the background.
func (a *Archive) begin(ctx context.Context) *archivePass {
	p := &archivePass{a: a, done: make(chan struct{}), found: make([][]archiveDir, len(a.Sources))}
	go func() {
		defer close(p.done)
		key := a.SyncKey
		if a.Sync == nil {
			key = ""
		} else if key == "" {
			key = "sync"
		}
		p.st = loadArchiveState(a.State, key)
		a.resolveRoots()
		for i, src := range a.Sources {
			p.st.walk(ctx, src.Reader.Harness(), src.Dir, func(dir string, names []string) {
				p.found[i] = append(p.found[i], archiveDir{dir, names})
			})
		}
	}()
	return p
}

// finish archives what changed among the live sessions (Sync) and
// returns the sessions only the archive holds. Walking before the sync
// is safe: what the sync adds are copies of live sessions, which are not
// listed from the archive, and the directories it changes have a new
// mtime, so the next listing reads them again.
func (p *archivePass) finish(ctx context.Context, live []Session) ([]Session, []Diagnostic) {
	<-p.done
	a, st := p.a, p.st
	a.sync(live, st, p.stats)
	out, diags := a.listArchived(live, p.found)
	hs := make([]string, 0, len(a.Sources))
	for _, src := range a.Sources {
		hs = append(hs, src.Reader.Harness())
	}
	if ctx.Err() == nil {
		_ = st.save(hs) // a cache: the next listing does the full pass
	}
	return out, diags
}

// list is begin and finish in one (tests).
func (a *Archive) list(ctx context.Context, live []Session) ([]Session, []Diagnostic) {
	return a.begin(ctx).finish(ctx, live)
}

// listArchived returns the sessions that exist only in the archive: of
// the files the walk found (per source, in found), those not among live,
// the sessions the harness readers found (not opened).
func (a *Archive) listArchived(live []Session, found [][]archiveDir) ([]Session, []Diagnostic) {
	listed := listedNames(live)
	var (
		out   []Session
		diags []Diagnostic
	)
	for i, src := range a.Sources {
		for _, d := range found[i] {
			rel, err := filepath.Rel(src.Dir, d.dir)
			if err != nil {
				continue
			}
			liveDir := filepath.Join(src.Root, rel)
			have := listed[liveDir]
			if src.resolved != "" {
				// Listed under the resolved spelling (Codex's rollout_path).
				have = append(slices.Clip(have), listed[filepath.Join(src.resolved, rel)]...)
			}
			if len(have) > 0 && !slices.IsSorted(have) {
				slices.Sort(have)
			}
			for _, name := range d.names {
				if _, ok := slices.BinarySearch(have, name); ok {
					continue
				}
				path := filepath.Join(d.dir, name)
				s, diag := archivedSession(src.Reader, path)
				if diag != "" {
					diags = append(diags, Diagnostic{Harness: src.Reader.Harness(), Path: path, Problem: "archived: " + diag})
					continue
				}
				s.State, s.Runtime = StateArchived, nil
				restore := filepath.Join(liveDir, name)
				if src.RestoreTo != "" {
					restore = src.RestoreTo
				}
				s.Archive = &ArchiveRef{Path: path, Compressed: archive.IsCompressed(path), Restore: restore}
				out = append(out, s)
			}
		}
		if sv, ok := src.Reader.(interface{ SaveCache() error }); ok {
			_ = sv.SaveCache()
		}
	}
	return out, diags
}

// listedNames are the file names of the listed transcripts (those the
// readers found, state not unknown) by directory: substrings of Source,
// no string allocated. A set of 10,000 (directory, name) keys cost a warm
// list ~10 ms; names by directory, sorted once (the Claude Code reader
// lists them in order already) and searched, a fraction of it.
func listedNames(live []Session) map[string][]string {
	byDir := map[string][]string{}
	var (
		lastDir string
		last    []string
		sp      scan.PathSplitter
	)
	for i := range live {
		s := &live[i]
		if s.State == StateUnknown {
			continue
		}
		dir, name := sp.Split(s.Source)
		if last == nil || dir != lastDir {
			if last != nil {
				byDir[lastDir] = last
			}
			lastDir, last = dir, byDir[dir]
		}
		last = append(last, name)
	}
	if last != nil {
		byDir[lastDir] = last
	}
	return byDir
}

// archivedSession describes one stored file with its harness's reader.
func archivedSession(r Reader, path string) (Session, string) {
	if d, ok := r.(describer); ok {
		return d.Describe(path)
	}
	return Session{}, "no archive support for this harness"
}

// mergeArchived adds the archived sessions to the live ones, each session
// once: a live session whose transcript is gone (a Codex thread the state
// database still lists) takes the archived file as its source.
func mergeArchived(live, archived []Session) []Session {
	if len(archived) == 0 {
		return live
	}
	type key struct{ harness, id string } // Key() without its allocation
	byKey := make(map[key]int, len(live))
	for i := range live {
		byKey[key{live[i].Harness, live[i].ID}] = i
	}
	for _, a := range archived {
		k := key{a.Harness, a.ID}
		i, ok := byKey[k]
		if !ok {
			byKey[k] = len(live)
			live = append(live, a)
			continue
		}
		l := &live[i]
		if l.State != StateUnknown {
			continue // the live file is there: listed once, as live
		}
		if _, err := os.Stat(l.Source); err == nil {
			continue
		}
		l.State, l.Source, l.Archive = StateArchived, a.Source, a.Archive
	}
	return live
}

// getArchived fully reads an archived session from its stored file.
func (a *Archive) getArchived(ctx context.Context, s Session) (Session, error) {
	for _, src := range a.Sources {
		if src.Reader.Harness() == s.Harness {
			full, err := src.Reader.Get(ctx, s)
			full.State, full.Runtime, full.Archive = StateArchived, nil, s.Archive
			return full, err
		}
	}
	return s, errors.New("no archive reader for " + s.Harness)
}

// ArchiveOpen opens a file for the readers, decoding a compressed archive
// copy (zstd) into an unlinked temporary file first, so readers see the
// transcript whatever way it is stored. Stat reports the transcript's
// size and the stored file's mtime.
func ArchiveOpen(name string) (File, error) {
	// One open for a plain transcript (every one a search index build
	// reads): its first bytes say it is not a compressed copy.
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	var head [4]byte
	if n, _ := f.ReadAt(head[:], 0); !archive.IsCompressedHeader(head[:n]) {
		return f, nil
	}
	f.Close()
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp("", ".tether-archive-*")
	if err != nil {
		return nil, err
	}
	os.Remove(tmp.Name()) // gone when closed; 0600 while it exists
	n, err := archive.Decompress(tmp, name)
	if err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		tmp.Close()
		return nil, err
	}
	return &decodedFile{File: tmp, info: sizedInfo{FileInfo: st, size: n}}, nil
}

type decodedFile struct {
	*os.File
	info fs.FileInfo
}

func (f *decodedFile) Stat() (fs.FileInfo, error) { return f.info, nil }

type sizedInfo struct {
	fs.FileInfo
	size int64
}

func (s sizedInfo) Size() int64        { return s.size }
func (s sizedInfo) ModTime() time.Time { return s.FileInfo.ModTime() }

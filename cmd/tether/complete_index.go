package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/shellinit/compindex"
)

// catalogIndexEntries lists every session (archived Codex threads aside)
// for the completion index. It is the one place completion depends on the
// session catalog; the catalog's per-file cache keeps a warm refresh to a
// stat per file.
func (a *App) catalogIndexEntries(ctx context.Context) ([]compindex.Entry, error) {
	c, err := a.catalogFor("")
	if err != nil {
		return nil, err
	}
	ss, _, err := c.List(ctx, catalog.ListOptions{})
	if err != nil && len(ss) == 0 {
		return nil, err
	}
	return indexEntriesOf(ss), nil
}

func indexEntriesOf(ss []catalog.Session) []compindex.Entry {
	out := make([]compindex.Entry, 0, len(ss))
	for _, s := range ss {
		if s.Archived {
			continue
		}
		out = append(out, compindex.Entry{
			Harness: s.Harness, ID: s.ID, LastActivity: s.LastActivity, Root: s.IdentityRoot, Title: s.Title,
		})
	}
	return out
}

// writeCompletionIndex refreshes the completion index from a listing that
// covers every harness, so TAB sees what `tether sessions list` saw. It
// is best effort: a listing never fails because the index could not be
// written.
func (a *App) writeCompletionIndex(ss []catalog.Session) {
	path := compindex.Path(a.Loc.CacheDir)
	// The digest straight from the sessions: the entries (~1 MB at
	// 10,000 sessions) are built only when the index is to be written.
	d := sessionsDigest(ss)
	if fresh, _ := compindex.Freshen(path, d); fresh {
		return
	}
	_ = compindex.WriteDigest(path, indexEntriesOf(ss), d)
}

// writeIndex writes the completion index with the digest of its entries,
// so that an index already holding them is not built again (most
// listings: see compindex.WriteDigest).
func writeIndex(path string, entries []compindex.Entry) error {
	return compindex.WriteDigest(path, entries, indexDigest(entries))
}

// indexDigest is the SHA-256 of every field of entries, in order: each
// string length-prefixed, the time as compindex.Write writes it (seconds).
func indexDigest(entries []compindex.Entry) string {
	var d entryDigest
	for i := range entries {
		e := &entries[i]
		d.add(e.Harness, e.ID, e.LastActivity.Unix(), e.Root, e.Title)
	}
	return d.sum()
}

// sessionsDigest is indexDigest(indexEntriesOf(ss)), without the entries.
func sessionsDigest(ss []catalog.Session) string {
	var d entryDigest
	for i := range ss {
		if s := &ss[i]; !s.Archived {
			d.add(s.Harness, s.ID, s.LastActivity.Unix(), s.IdentityRoot, s.Title)
		}
	}
	return d.sum()
}

// entryDigest hashes index entries. Fields are appended to one buffer
// and hashed in large writes: a write per field costs more than the hash.
type entryDigest struct {
	h   hash.Hash
	buf []byte
}

func (d *entryDigest) add(harness, id string, sec int64, root, title string) {
	if d.h == nil {
		d.h, d.buf = sha256.New(), make([]byte, 0, 64<<10)
	}
	d.put(harness)
	d.put(id)
	d.buf = binary.AppendVarint(d.buf, sec)
	d.put(root)
	d.put(title)
	if len(d.buf) >= 60<<10 {
		d.h.Write(d.buf)
		d.buf = d.buf[:0]
	}
}

func (d *entryDigest) put(s string) {
	d.buf = binary.AppendUvarint(d.buf, uint64(len(s)))
	d.buf = append(d.buf, s...)
}

func (d *entryDigest) sum() string {
	if d.h == nil {
		d.h = sha256.New()
	}
	d.h.Write(d.buf)
	return hex.EncodeToString(d.h.Sum(nil))
}

package app

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/shellinit"
)

// catalogIndexEntries lists every session (archived Codex threads aside)
// for the completion index. It is the one place completion depends on the
// session catalog; the catalog's per-file cache keeps a warm refresh to a
// stat per file.
func (a *App) catalogIndexEntries(ctx context.Context) ([]shellinit.IndexEntry, error) {
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

func indexEntriesOf(ss []catalog.Session) []shellinit.IndexEntry {
	out := make([]shellinit.IndexEntry, 0, len(ss))
	for _, s := range ss {
		if s.Archived {
			continue
		}
		out = append(out, shellinit.IndexEntry{
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
	_ = writeIndex(shellinit.IndexPath(a.Loc.CacheDir), indexEntriesOf(ss))
}

// writeIndex writes the completion index with the digest of its entries,
// so that an index already holding them is not built again (most
// listings: see shellinit.WriteIndexDigest).
func writeIndex(path string, entries []shellinit.IndexEntry) error {
	return shellinit.WriteIndexDigest(path, entries, indexDigest(entries))
}

// indexDigest is the SHA-256 of every field of entries, in order: each
// string length-prefixed, the time as WriteIndex writes it (seconds).
func indexDigest(entries []shellinit.IndexEntry) string {
	h := sha256.New()
	// Appended to one buffer and hashed in large writes: a write per
	// field costs more than the hash.
	buf := make([]byte, 0, 64<<10)
	put := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for i := range entries {
		e := &entries[i]
		put(e.Harness)
		put(e.ID)
		buf = binary.AppendVarint(buf, e.LastActivity.Unix())
		put(e.Root)
		put(e.Title)
		if len(buf) >= 60<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

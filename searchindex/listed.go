package searchindex

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/atomicfile"
)

// A warm search lists the catalog and then compares each of its 10,000
// sessions with the index's file rows (reading them all, ~50 ms) to find
// that nothing changed. The listed file lets it skip that: an update that
// changed nothing records a digest of the listing it was given (each
// session's key, transcript path, size, mtime, title, last activity and
// summary stamp: everything the comparison looks at) next to the index
// file's stamp taken after it. The next update given a listing of the
// same digest, while the index file still has that stamp, has nothing to
// do. Any write to the index, by this or another tether (an older one
// that knows nothing of this file included), changes the stamp: SQLite's
// file change counter moves on every committed write, and with it the
// file's mtime.

// listedFile is where the record is kept, next to the index.
func listedFile(path string) string { return path + "-listed" }

// listedVersion changes with what the digest covers.
const listedVersion = "1"

// listingDigest is the digest of what Update compares for sessions, and
// how many distinct sessions they are.
func listingDigest(sessions []catalog.Session, opts UpdateOptions) (string, int) {
	h := sha256.New()
	type key struct{ harness, id string } // Key() without its allocation
	seen := make(map[key]bool, len(sessions))
	// Fields are appended to one buffer, hashed in large writes: small
	// writes (and a []byte per string) cost more than the hash.
	buf := make([]byte, 0, 64<<10)
	putStr := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	putInt := func(v int64) { buf = binary.AppendVarint(buf, v) }
	for i := range sessions {
		s := &sessions[i]
		k := key{s.Harness, s.ID}
		if seen[k] {
			continue
		}
		seen[k] = true
		size, mtime := s.SourceSize, s.SourceMTime
		if mtime == 0 {
			size, mtime = statOf(s.Source) // as plan does
		}
		stamp := ""
		if opts.SummaryStamp != nil {
			stamp = opts.SummaryStamp(s)
		}
		putStr(s.Harness)
		putStr(s.ID)
		putStr(s.Source)
		putInt(size)
		putInt(mtime)
		putStr(s.Title)
		putInt(s.LastActivity.UnixNano())
		putStr(stamp)
		if len(buf) >= 60<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), len(seen)
}

// fileStamp identifies the state of the index file: inode, size, mtime
// and SQLite's file change counter ("" when it cannot be read).
func fileStamp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	var hdr [28]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return ""
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return fmt.Sprintf("%d/%d/%d/%d", ino, fi.Size(), fi.ModTime().UnixNano(), binary.BigEndian.Uint32(hdr[24:]))
}

// listedCurrent reports whether digest is the listing recorded as current
// for the index file as it is now.
func (ix *Index) listedCurrent(digest string) bool {
	data, err := os.ReadFile(listedFile(ix.path))
	if err != nil {
		return false
	}
	f := strings.Fields(string(data))
	return len(f) == 3 && f[0] == listedVersion && f[1] == digest && f[2] != "" && f[2] == fileStamp(ix.path)
}

// recordListed records digest as current for the index file at stamp
// (taken inside the update's transaction, whose lock keeps other writers
// out, so a write that lands after it is not taken for the state compared);
// forgetListed removes the record. Both are best effort: the record is a
// cache, and without it the next update compares as before.
func (ix *Index) recordListed(digest, stamp string) {
	if stamp == "" {
		ix.forgetListed()
		return
	}
	data := []byte(listedVersion + " " + digest + " " + stamp + "\n")
	if err := atomicfile.WriteBytes(listedFile(ix.path), data, atomicfile.Options{Perm: 0o600, NoSync: true}); err != nil {
		ix.forgetListed()
	}
}

func (ix *Index) forgetListed() { _ = os.Remove(listedFile(ix.path)) }

// nothingChanged reports whether an update that did st left the index
// equal to the listing it was given.
func (st UpdateStats) nothingChanged() bool {
	return st.Added == 0 && st.Appended == 0 && st.Reindexed == 0 && st.Removed == 0 && st.Summaries == 0 &&
		st.retitled == 0 && st.retained == 0
}

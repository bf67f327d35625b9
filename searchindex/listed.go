package searchindex

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/tether-dev/tether/catalog"
	"github.com/tether-dev/tether/internal/atomicfile"

	"github.com/tether-dev/tether/internal/safeio"
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

// listedVersion changes with what the digest covers and the record's
// fields. 2: every listed session is hashed, duplicates included, and the
// record carries the number of distinct sessions.
const listedVersion = "2"

// listingDigest is the digest of what Update compares for sessions. Every
// session is hashed in listing order (which is deterministic: newest
// first, ties by key), a duplicate too: no set of the sessions is built
// (that set was two thirds of a warm search's check), and the same
// listing still gives the same digest. Runs of digestRun sessions are
// hashed on every core (the digest is on a warm search's path, after the
// listing), the digest being that of their sums in order.
func listingDigest(sessions []catalog.Session, opts UpdateOptions) string {
	runs := (len(sessions) + digestRun - 1) / digestRun
	sums := make([]byte, runs*sha256.Size)
	next := make(chan int, runs)
	for i := range runs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runs, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run := sessions[i*digestRun : min((i+1)*digestRun, len(sessions))]
				copy(sums[i*sha256.Size:], digestSessions(run, opts))
			}
		}()
	}
	wg.Wait()
	sum := sha256.Sum256(sums)
	return hex.EncodeToString(sum[:])
}

// digestRun is how many sessions one sum of listingDigest covers.
const digestRun = 2048

// digestSessions is the sum of the compared fields of sessions.
func digestSessions(sessions []catalog.Session, opts UpdateOptions) []byte {
	h := sha256.New()
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
	return h.Sum(nil)
}

// fileStamp identifies the state of the index file: inode, size, mtime
// and SQLite's file change counter ("" when it cannot be read).
func fileStamp(path string) string {
	f, err := safeio.OpenOwn(path)
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
// for the index file as it is now, and then how many distinct sessions
// that listing had.
func (ix *Index) listedCurrent(digest string) (int, bool) {
	data, err := safeio.ReadOwn(listedFile(ix.path))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) != 4 || f[0] != listedVersion || f[1] != digest || f[3] == "" || f[3] != fileStamp(ix.path) {
		return 0, false
	}
	n, err := strconv.Atoi(f[2])
	return n, err == nil && n >= 0
}

// recordListed records digest, of a listing of n distinct sessions (a
// skipped update's Unchanged), as current for the index file at stamp
// (taken inside the update's transaction, whose lock keeps other writers
// out, so a write that lands after it is not taken for the state compared);
// forgetListed removes the record. Both are best effort: the record is a
// cache, and without it the next update compares as before.
func (ix *Index) recordListed(digest string, n int, stamp string) {
	if stamp == "" {
		ix.forgetListed()
		return
	}
	data := []byte(listedVersion + " " + digest + " " + strconv.Itoa(n) + " " + stamp + "\n")
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

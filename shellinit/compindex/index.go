// Package compindex is the completion index: the file of every session
// (harness, id, last activity, identity root, title) that `tether complete`
// and tether-hot read on each TAB, written by whatever lists the sessions,
// and the session-id candidates drawn from it, formatted for each shell.
package compindex

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
	"github.com/tether-dev/tether/internal/termsafe"
)

// The completion index is a small tab-separated file in the cache
// directory that `tether complete` reads on every TAB, so that completing a
// session id never waits for a scan of the transcripts. Whatever lists the
// sessions (`tether sessions list`, the background refresh) rewrites it.
//
//	# tether complete index v1
//	claude-code<TAB>3f2a…<TAB>1764500000<TAB>/home/example/src/project<TAB>fix the login bug
//	…
//	<TAB>#roots
//	<TAB>#root<TAB>12<TAB>/home/example/src/project<TAB>
//
// The footer counts the lines of each root, so that a TAB in a directory
// with few sessions stops searching once it has them all (or does not
// search). Its lines start with a tab, which every reader of the index
// skips as it skips any line without a harness (older ones too).
const indexHeader = "# tether complete index v1"

// rootsMarker starts the footer; rootLine is one of its lines.
const (
	rootsMarker = "\t#roots\n"
	rootLine    = "\t#root\t"
)

// File is the index's name under the cache directory.
const File = "complete.tsv"

// Path is the completion index under cacheDir.
func Path(cacheDir string) string { return filepath.Join(cacheDir, File) }

// Entry is one session in the completion index.
type Entry struct {
	Harness      string
	ID           string
	LastActivity time.Time
	// Root is the session's identity root, to put the current directory's
	// sessions first.
	Root  string
	Title string
}

// Write replaces the index at path with entries, newest first,
// atomically and mode 0600 (titles come from prompts). A listing calls it
// with 10,000 entries already in order on every run: the lines are
// appended to one buffer (not concatenated), and entries in order are not
// copied and sorted again.
func Write(path string, entries []Entry) error {
	return WriteDigest(path, entries, "")
}

// A listing rewrites the index on every run, and nearly always with the
// same entries: building the 1.3 MB of a 10,000-session index to compare
// it with the file cost a warm list ~10 ms of CPU (and as many page
// faults as the file has pages). So the writer may give a digest of the
// entries (its hash of every field of every entry, in order), which the
// index records on its second line, tab-led (every reader skips such
// lines), with the file's size and listingLayout:
//
//	<TAB>#listing<TAB>1<TAB>3f9c…<TAB>0000000001372004
//
// An index whose first two lines are the header and that line, for the
// same digest and the file's own size, holds what Write would write
// for those entries: it is marked fresh instead of being built. The
// index is only ever replaced whole (by rename), so a file that is not
// what was recorded (an older tether's, one cut short or grown) fails the
// check and is rewritten.
const listingTag = "\t#listing\t"

// listingLayout changes whenever Write writes other bytes for the
// same entries, so that no index of an older layout passes for current.
const listingLayout = "1"

// listingLine is the recorded line for digest in a file of size bytes
// (the size has a fixed width, so the line's length does not depend on it).
func listingLine(digest string, size int) string {
	return listingTag + listingLayout + "\t" + digest + "\t" + fmt.Sprintf("%016d", size) + "\n"
}

// indexRecords reports whether the index at path records digest for its
// present size (see listingTag).
func indexRecords(path, digest string) bool {
	f, err := safeio.OpenOwn(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	want := indexHeader + "\n" + listingLine(digest, int(st.Size()))
	got := make([]byte, len(want))
	n, err := f.ReadAt(got, 0)
	return n == len(want) && (err == nil || err == io.EOF) && string(got) == want
}

// Freshen marks the index at path fresh (complete's age check) when
// it records digest, and reports whether it did: a writer that knows the
// digest of what it would write then need not even build the entries.
func Freshen(path, digest string) (bool, error) {
	if digest == "" || strings.ContainsAny(digest, "\t\n\r\\") || !indexRecords(path, digest) {
		return false, nil
	}
	now := time.Now()
	return true, os.Chtimes(path, now, now)
}

// WriteDigest is Write for entries of the given digest (see
// listingTag; "" records none): when the index already records it, the
// file is only marked fresh for complete's age check.
func WriteDigest(path string, entries []Entry, digest string) error {
	if strings.ContainsAny(digest, "\t\n\r\\") {
		digest = "" // not a digest a line can hold: record none
	}
	if digest != "" {
		if fresh, err := Freshen(path, digest); fresh {
			return err
		}
	}
	if !newestFirst(entries) {
		entries = slices.Clone(entries)
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].LastActivity.After(entries[j].LastActivity) })
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	buf := make([]byte, 0, len(entries)*128)
	buf = append(buf, indexHeader+"\n"...)
	line := len(buf)
	if digest != "" {
		buf = append(buf, listingLine(digest, 0)...) // its size is set below
	}
	perRoot := map[string]int{}
	for _, e := range entries {
		if e.ID == "" || e.Harness == "" {
			continue
		}
		buf = appendField(buf, e.Harness)
		buf = append(buf, '\t')
		buf = appendField(buf, e.ID)
		buf = append(buf, '\t')
		buf = strconv.AppendInt(buf, e.LastActivity.Unix(), 10)
		buf = append(buf, '\t')
		at := len(buf)
		buf = appendField(buf, e.Root)
		perRoot[string(buf[at:])]++
		buf = append(buf, '\t')
		buf = appendField(buf, e.Title)
		buf = append(buf, '\n')
	}
	buf = append(buf, rootsMarker...)
	for _, root := range slices.Sorted(maps.Keys(perRoot)) {
		buf = append(buf, rootLine...)
		buf = strconv.AppendInt(buf, int64(perRoot[root]), 10)
		buf = append(buf, '\t')
		buf = append(buf, root...)
		buf = append(buf, "\t\n"...)
	}
	if digest != "" {
		copy(buf[line:], listingLine(digest, len(buf)))
	} else if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, buf) {
		// Unchanged (a writer without a digest): mark it fresh for
		// complete's age check instead of rewriting and fsyncing it.
		now := time.Now()
		return os.Chtimes(path, now, now)
	}
	return atomicfile.WriteBytes(path, buf, atomicfile.Options{Perm: 0o600})
}

// newestFirst reports whether entries are in Write's order already
// (a stable sort would leave them as they are).
func newestFirst(entries []Entry) bool {
	for i := 1; i < len(entries); i++ {
		if entries[i].LastActivity.After(entries[i-1].LastActivity) {
			return false
		}
	}
	return true
}

// field keeps a value on one line and in one column: backslash, tab,
// newline and carriage return are escaped (\\ \t \n \r), so that any
// directory name survives the round trip.
func field(s string) string {
	if plainField(s) {
		return s
	}
	return fieldEscaper.Replace(s)
}

// appendField appends field(s) to b.
func appendField(b []byte, s string) []byte {
	if plainField(s) {
		return append(b, s...)
	}
	return append(b, fieldEscaper.Replace(s)...)
}

// plainField reports whether s has nothing field escapes.
func plainField(s string) bool { return !strings.ContainsAny(s, "\\\t\n\r") }

var (
	fieldEscaper   = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	fieldUnescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
)

func unfield(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return fieldUnescaper.Replace(s)
}

// Read reads the index at path. Lines it does not understand are
// skipped; a file without the header is an error (it is not an index).
func Read(path string) ([]Entry, error) { return ReadMatching(path, nil) }

// ReadMatching is Read keeping only the entries for which keep
// (nil: all) says yes, asked before the rest of the line is decoded. It
// runs on every TAB, over up to tens of thousands of lines: one read, no
// copy of the file, fields that are substrings of it, and nothing built
// for the lines keep turns down.
func ReadMatching(path string, keep func(harness, id string) bool) ([]Entry, error) {
	data, err := safeio.ReadOwn(path)
	if err != nil {
		return nil, err
	}
	// The bytes are never written again: share them instead of copying
	// (a copy of a 1.4 MB index, 10,000 sessions, took a fresh process
	// 0.8-0.9 ms).
	return parseIndex(path, unsafe.String(unsafe.SliceData(data), len(data)), keep)
}

// mapIndexMatching calls use with what ReadMatching returns, read
// from a mapping of the file (see mapIndex) instead of a copy of it: a
// TAB then faults in a few pages of the page cache instead of copying the
// whole index (1.4 MB at 10,000 sessions; reading it whole cost a TAB
// after claude --resume 0.7-0.9 ms more CPU, whole processes measured
// before and after, interleaved). The entries' strings point
// into the mapping: they are valid only during the call, under mapIndex's
// guard against a file truncated meanwhile.
func mapIndexMatching(path string, keep func(harness, id string) bool, use func([]Entry)) error {
	return mapIndex(path, func(text string) error {
		entries, err := parseIndex(path, text, keep)
		if err == nil {
			use(entries)
		}
		return err
	})
}

// mapIndex calls use with the index's text, mapped as MapIndexMatching
// maps it (read into memory where it cannot be mapped); the text is
// valid only during the call.
func mapIndex(path string, use func(text string) error) (err error) {
	// The index is replaced by rename, never rewritten in place; a file
	// truncated under the mapping by something else fails the read with
	// an error instead of crashing (SetPanicOnFault).
	f, err := safeio.OpenOwn(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var data []byte
	if st, serr := f.Stat(); serr == nil && st.Size() > 0 && st.Size() <= 1<<30 {
		data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	}
	if data == nil || err != nil {
		if data, err = io.ReadAll(f); err != nil {
			return err
		}
	} else {
		defer syscall.Munmap(data)
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("%s: changed while read: %v", path, r)
			}
		}()
	}
	return use(unsafe.String(unsafe.SliceData(data), len(data)))
}

func parseIndex(path, text string, keep func(harness, id string) bool) ([]Entry, error) {
	head, rest, _ := strings.Cut(text, "\n")
	if head != indexHeader {
		return nil, fmt.Errorf("%s: not a tether completion index", path)
	}
	// Room for every line: pages a filtered read leaves unused are never
	// touched, so they cost nothing.
	entries := make([]Entry, 0, strings.Count(rest, "\n"))
	for len(rest) > 0 {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		var f [5]string
		ok := true
		for i := 0; i < 4; i++ {
			f[i], line, ok = strings.Cut(line, "\t")
			if !ok {
				break
			}
		}
		if !ok || f[0] == "" || f[1] == "" {
			continue
		}
		harness, id := unfield(f[0]), unfield(f[1])
		if keep != nil && !keep(harness, id) {
			continue
		}
		f[4] = line
		sec, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		entries = append(entries, Entry{Harness: harness, ID: id, LastActivity: time.Unix(sec, 0), Root: unfield(f[3]), Title: unfield(f[4])})
	}
	return entries, nil
}

// Candidate is one completion: a value and what zsh and fish show beside
// it.
type Candidate struct {
	Value string
	Desc  string
}

// SessionQuery selects the session ids to offer.
type SessionQuery struct {
	// Harnesses in the order to offer them (claude-code before codex when
	// completing claude).
	Harnesses []string
	// Root is the current identity root: its sessions come first within
	// each harness.
	Root   string
	Prefix string
	Now    time.Time
	// Limit caps the candidates (0: no cap).
	Limit int
}

// SessionCandidates picks and orders the entries q asks for: by harness
// in q's order, the current root's sessions first, newest first within
// each group. It runs on every TAB, so it partitions instead of sorting
// the whole index: entries are kept in the index's order (newest first,
// as Write writes them) and each group is sorted only if it is not.
func SessionCandidates(entries []Entry, q SessionQuery) []Candidate {
	groups := make([][]*Entry, 2*len(q.Harnesses))
	for i := range entries {
		e := &entries[i]
		if !strings.HasPrefix(e.ID, q.Prefix) {
			continue
		}
		if g := q.group(e.Harness, e.Root == q.Root); g >= 0 {
			groups[g] = append(groups[g], e)
		}
	}
	return q.candidates(groups)
}

// group is the group an entry of harness goes to (-1: none): two per
// harness in q's order, the current root's first.
func (q SessionQuery) group(harness string, inRoot bool) int {
	for r, h := range q.Harnesses {
		if harness == h {
			if inRoot {
				return 2 * r
			}
			return 2*r + 1
		}
	}
	return -1
}

// candidates formats groups in order, each newest first, up to q.Limit.
func (q SessionQuery) candidates(groups [][]*Entry) []Candidate {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	if q.Limit > 0 {
		n = min(n, q.Limit)
	}
	out := make([]Candidate, 0, n)
	q.describe(groups, func(e *Entry, desc []byte) {
		out = append(out, Candidate{Value: e.ID, Desc: termsafe.Printable(string(desc))})
	})
	return out
}

// describe calls f with the entries of groups in order, each newest
// first, up to q.Limit, and each one's description (not yet printable;
// valid only during the call).
func (q SessionQuery) describe(groups [][]*Entry, f func(e *Entry, desc []byte)) {
	n := 0
	// One buffer for every description: a TAB formats up to q.Limit of
	// them.
	var desc []byte
	for _, g := range groups {
		if !sort.SliceIsSorted(g, func(i, j int) bool { return g[i].LastActivity.After(g[j].LastActivity) }) {
			sort.SliceStable(g, func(i, j int) bool { return g[i].LastActivity.After(g[j].LastActivity) })
		}
		for _, e := range g {
			if q.Limit > 0 && n == q.Limit {
				return
			}
			desc = desc[:0]
			if len(q.Harnesses) > 1 {
				desc = append(append(desc, e.Harness...), " · "...)
			}
			desc = append(appendRelTime(desc, q.Now, e.LastActivity), " · "...)
			desc = append(desc, e.Title...)
			if e.Root != q.Root && e.Root != "" {
				desc = append(append(append(desc, " ("...), filepath.Base(e.Root)...), ')')
			}
			f(e, desc)
			n++
		}
	}
}

// MapSessionCandidates is SessionCandidates over the index at path
// (mapped, as MapIndexMatching), decoding only what can be offered: each
// group keeps its first q.Limit entries, and lines past that are only
// checked to be in order (newest first, as Write writes them). A TAB
// with nothing typed then decodes at most a few hundred of the ~10,000
// lines (decoding them all, as allSessionCandidates does, cost such a TAB
// 3.6 ms more CPU at 10,000 sessions). An index out of order is read in
// full, so the result is always SessionCandidates's.
func MapSessionCandidates(path string, q SessionQuery) ([]Candidate, error) {
	var cands []Candidate
	full := false
	err := mapIndex(path, func(text string) error {
		groups, ok, err := boundedGroups(path, text, &q)
		if err != nil || !ok {
			full = err == nil
			return err
		}
		cands = q.candidates(groups)
		// The values point into the mapping, which goes on return.
		for i := range cands {
			cands[i].Value = strings.Clone(cands[i].Value)
		}
		return nil
	})
	if err != nil || !full {
		return cands, err
	}
	return allSessionCandidates(path, q)
}

// allSessionCandidates is MapSessionCandidates reading every line: for an
// index whose lines are out of order.
func allSessionCandidates(path string, q SessionQuery) ([]Candidate, error) {
	var cands []Candidate
	err := mapIndexMatching(path, func(harness, id string) bool {
		return strings.HasPrefix(id, q.Prefix) && slices.Contains(q.Harnesses, harness)
	}, func(entries []Entry) {
		cands = SessionCandidates(entries, q)
		for i := range cands {
			cands[i].Value = strings.Clone(cands[i].Value)
		}
	})
	if err != nil {
		return nil, err
	}
	return cands, nil
}

// boundedGroups groups the index's matching lines for q, decoding at most
// q.Limit per group; ok is false when a group that overflowed was out of
// order (the caller then reads every line). Once every other-directory
// group is full, only the current root's lines can still be offered: the
// rest of the text is searched for its root column instead of being
// split into lines, trusting the order Write wrote (the lines read
// line by line are still checked).
func boundedGroups(path, text string, q *SessionQuery) (groups [][]*Entry, ok bool, err error) {
	head, rest, _ := strings.Cut(text, "\n")
	if head != indexHeader {
		return nil, false, fmt.Errorf("%s: not a tether completion index", path)
	}
	b := boundedReader{q: q, rawRoot: field(q.Root), groups: make([][]*Entry, 2*len(q.Harnesses))}
	if q.Limit > 0 {
		for g := range b.groups {
			b.groups[g] = make([]*Entry, 0, min(q.Limit, 512))
		}
	}
	b.last = make([]int64, len(b.groups))
	b.overflow = make([]bool, len(b.groups))
	b.unsorted = make([]bool, len(b.groups))
	rootCount := -1 // unknown: an index without a footer
	if i := strings.LastIndex(rest, "\n"+rootsMarker); i >= 0 {
		rootCount = footerCount(rest[i+1+len(rootsMarker):], b.rawRoot)
		rest = rest[:i+1]
	}
	for len(rest) > 0 && !b.othersFull() {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		b.line(line)
	}
	needle := "\t" + b.rawRoot + "\t"
	rare := rarestByte(rest, needle)
	for len(rest) > 0 && !b.rootsFull() && (rootCount < 0 || b.rootLines < rootCount) {
		i := indexAt(rest, needle, rare)
		if i < 0 {
			break
		}
		start := strings.LastIndexByte(rest[:i], '\n') + 1
		line, after, _ := strings.Cut(rest[start:], "\n")
		b.line(line)
		rest = after
	}
	for g := range b.groups {
		if b.overflow[g] && b.unsorted[g] {
			return nil, false, nil
		}
	}
	return b.groups, true, nil
}

// footerCount is the number of lines of rawRoot the footer lists (0 when
// it lists none).
func footerCount(footer, rawRoot string) int {
	i := strings.Index(footer, "\t"+rawRoot+"\t\n")
	if i < 0 {
		return 0
	}
	line := footer[strings.LastIndexByte(footer[:i], '\n')+1 : i]
	n, err := strconv.Atoi(strings.TrimPrefix(line, rootLine))
	if err != nil || !strings.HasPrefix(line, rootLine) {
		return -1 // not a count: search as without a footer
	}
	return n
}

// rarestByte is the position in needle of its byte seen least often in
// samples of text (its start, middle and end): the byte indexAt looks for.
func rarestByte(text, needle string) int {
	var freq [256]int
	const n = 4 << 10
	for _, at := range []int{0, len(text)/2 - n/2, len(text) - n} {
		at = max(at, 0)
		for _, c := range []byte(text[at:min(at+n, len(text))]) {
			freq[c]++
		}
	}
	p := 0
	for i := 1; i < len(needle); i++ {
		if freq[needle[i]] < freq[needle[p]] {
			p = i
		}
	}
	return p
}

// indexAt is strings.Index(s, needle), found by looking for needle[p]
// with IndexByte (a vector scan) and comparing there. Looking for a root
// column ("\t/home/…\t") strings.Index starts at every tab, four a line;
// for a directory with few sessions that scan went through the whole
// index (~1.4 MB at 10,000 sessions) at a fifth of IndexByte's speed:
// strings.Index made a TAB in a directory of 52 of the 10,000 sessions
// 0.36-0.43 ms slower (CPU, whole processes measured interleaved).
func indexAt(s, needle string, p int) int {
	if len(needle) == 0 || p >= len(needle) {
		return strings.Index(s, needle)
	}
	c := needle[p]
	for from := 0; from+len(needle) <= len(s); {
		j := strings.IndexByte(s[from+p:], c)
		if j < 0 {
			return -1
		}
		start := from + j
		if start+len(needle) > len(s) {
			return -1
		}
		if s[start:start+len(needle)] == needle {
			return start
		}
		from = start + 1
	}
	return -1
}

// boundedReader is boundedGroups's state.
type boundedReader struct {
	q                  *SessionQuery
	rawRoot            string
	groups             [][]*Entry
	last               []int64
	overflow, unsorted []bool
	// rootLines counts the lines of the current root seen, whatever
	// their harness or id.
	rootLines int
}

// othersFull: every harness's other-directory group has q.Limit entries.
func (b *boundedReader) othersFull() bool {
	for g := 1; g < len(b.groups); g += 2 {
		if b.q.Limit == 0 || len(b.groups[g]) < b.q.Limit {
			return false
		}
	}
	return true
}

// rootsFull: every harness's current-root group has q.Limit entries.
func (b *boundedReader) rootsFull() bool {
	for g := 0; g < len(b.groups); g += 2 {
		if b.q.Limit == 0 || len(b.groups[g]) < b.q.Limit {
			return false
		}
	}
	return true
}

// line adds one index line to its group, decoded, while the group has
// room.
func (b *boundedReader) line(line string) {
	var f [4]string
	cut := true
	for i := 0; i < 4 && cut; i++ {
		f[i], line, cut = strings.Cut(line, "\t")
	}
	if !cut || f[0] == "" || f[1] == "" {
		return
	}
	inRoot := f[3] == b.rawRoot
	if inRoot {
		b.rootLines++
	}
	harness, id := unfield(f[0]), unfield(f[1])
	if !strings.HasPrefix(id, b.q.Prefix) || !slices.Contains(b.q.Harnesses, harness) {
		return
	}
	sec, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return
	}
	inRoot = inRoot || (strings.IndexByte(f[3], '\\') >= 0 && unfield(f[3]) == b.q.Root)
	g := b.q.group(harness, inRoot)
	if len(b.groups[g]) > 0 && sec > b.last[g] {
		b.unsorted[g] = true
	}
	b.last[g] = sec
	if b.q.Limit > 0 && len(b.groups[g]) >= b.q.Limit {
		b.overflow[g] = true
		return
	}
	root := f[3]
	if inRoot {
		root = b.q.Root
	} else {
		root = unfield(root)
	}
	b.groups[g] = append(b.groups[g], &Entry{Harness: harness, ID: id, LastActivity: time.Unix(sec, 0), Root: root, Title: unfield(line)})
}

// RelTime says how long ago t was, briefly.
func RelTime(now, t time.Time) string { return string(appendRelTime(nil, now, t)) }

// appendRelTime appends RelTime(now, t) to b.
func appendRelTime(b []byte, now, t time.Time) []byte {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return append(b, "just now"...)
	case d < time.Hour:
		return append(strconv.AppendInt(b, int64(d/time.Minute), 10), "m ago"...)
	case d < 48*time.Hour:
		return append(strconv.AppendInt(b, int64(d/time.Hour), 10), "h ago"...)
	case d < 14*24*time.Hour:
		return append(strconv.AppendInt(b, int64(d/(24*time.Hour)), 10), "d ago"...)
	case d < 365*24*time.Hour:
		return append(strconv.AppendInt(b, int64(d/(7*24*time.Hour)), 10), "w ago"...)
	}
	return t.AppendFormat(b, "2006-01-02")
}

// FormatCandidates writes candidates the way the shell's completion
// function reads them: bash one value a line; zsh value:description for
// _describe (colons in the value escaped); fish value<TAB>description.
func FormatCandidates(w io.Writer, shell string, cands []Candidate) error {
	var b []byte
	for _, c := range cands {
		b = appendCandidate(b, shell, c.Value, c.Desc)
	}
	if len(b) == 0 {
		return nil
	}
	// One write: a TAB prints up to 500 lines.
	_, err := w.Write(b)
	return err
}

// appendCandidate appends the line FormatCandidates writes for the
// candidate v (value) and d (description).
func appendCandidate(b []byte, shell, v, d string) []byte {
	v, d = termsafe.Printable(v), termsafe.Printable(d)
	sep := byte(0)
	switch shell {
	case "zsh":
		v = strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), ":", `\:`)
		sep = ':'
	case "fish":
		sep = '\t'
	}
	b = append(b, v...)
	if sep != 0 && d != "" {
		b = append(append(b, sep), d...)
	}
	return append(b, '\n')
}

// AppendSessionCandidates appends to b what FormatCandidates writes for
// MapSessionCandidates(path, q), each value prefixed by valuePfx. The
// lines are formatted while the index is mapped, straight from its text:
// no Candidate, description or copy of a value is allocated, and each
// description is made printable once (a TAB offers up to 500; through
// MapSessionCandidates and FormatCandidates a TAB after claude --resume
// at 10,000 sessions took 0.37-0.42 ms more CPU, whole processes measured
// interleaved). On error b is returned as it was.
func AppendSessionCandidates(b []byte, shell, path string, q *SessionQuery, valuePfx string) ([]byte, error) {
	out, full := b, false
	err := mapIndex(path, func(text string) error {
		groups, ok, err := boundedGroups(path, text, q)
		if err != nil || !ok {
			full = err == nil
			return err
		}
		q.describe(groups, func(e *Entry, desc []byte) {
			// Printable(Printable(d)) is Printable(d): the description
			// is made printable here only.
			out = appendCandidate(out, shell, valuePfx+e.ID, unsafe.String(unsafe.SliceData(desc), len(desc)))
		})
		return nil
	})
	if err != nil {
		return b, err
	}
	if !full {
		return out, nil
	}
	cands, err := allSessionCandidates(path, *q)
	if err != nil {
		return b, err
	}
	for _, c := range cands {
		out = appendCandidate(out, shell, valuePfx+c.Value, c.Desc)
	}
	return out, nil
}

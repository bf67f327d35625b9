package searchindex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/tether-dev/tether/catalog"
)

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Progress, when set, is called after each transcript read with how
	// many of the transcripts to read are done.
	Progress func(done, total int)
	// Retain, when set, keeps the entry of a session the listing no longer
	// has (an archived session whose transcript moved out of the agent's
	// directory) instead of dropping it.
	Retain func(key string) bool
	// Open opens transcripts (tests count or fail reads); default os.Open.
	Open catalog.Opener
	// SummaryStamp, when set, names the stored summary of a session ("":
	// none) cheaply, without reading it (its file's identity, size and
	// mtime), and changes when the summary is redone. SummaryText reads
	// the summary's text, only for a session whose stamp is not the one
	// indexed; an error indexes no text under that stamp. SummaryStamp
	// may be called from several goroutines at once.
	SummaryStamp func(*catalog.Session) string
	SummaryText  func(*catalog.Session) (string, error)
	// Waiting, when set, is called once if another tether is writing the
	// index and this update waits for it.
	Waiting func()
}

// UpdateStats say what an Update did.
type UpdateStats struct {
	Added, Appended, Reindexed, Removed, Unchanged int
	// Summaries is how many sessions' summary column was written (a
	// summary new, redone or removed).
	Summaries int
	// BytesRead is the transcript bytes read.
	BytesRead int64
	// Skipped: the listing was the one the previous update found
	// nothing to do for, and the index was not written since, so nothing
	// was compared (every session counts as Unchanged).
	Skipped bool

	// retitled and retained count sessions whose title or last activity
	// was rewritten, and entries kept though the listing lacks them: an
	// update with neither (nor anything above) leaves the index equal to
	// the listing.
	retitled, retained int
}

// row is what the files table knows about one session.
type row struct {
	id                int64
	path              string
	size, mtime, off  int64
	head, tail, title string
	last              int64
	sumstamp          string
	msgs              catalog.MessageCount
}

// job is one transcript to read, from off (0: from the start).
type job struct {
	id      int64
	harness string
	path    string
	title   string
	summary string // a fresh row's summary text
	off     int64
	// reset: the texts replace the row's; fresh: there is no docs row yet.
	reset, fresh bool
	old          row
	// session is the listed session: one whose agent keeps it as rows of
	// a database is read whole from there (catalog.SessionTexts), at its
	// listed stamp (size, mtime).
	session     *catalog.Session
	size, mtime int64
}

// result is what reading a job's transcript found.
type result struct {
	job
	size, mtime, end int64
	head, tail       string
	cols             [numCols]strings.Builder
	// msgs counts the messages of the bytes before end.
	msgs catalog.MessageCount
	err  error
}

// fpLen is how many bytes each fingerprint covers: the first bytes of the
// file and the last bytes before the read offset. A rewrite (trim, a
// compaction that rewrites the file) changes them; an append does not.
const fpLen = 4096

// Update brings the index in line with sessions (every session listed,
// archived included): new transcripts are read whole, grown ones from
// where the last read stopped, rewritten or shrunk ones again, and the
// entries of sessions no longer listed are removed.
func (ix *Index) Update(ctx context.Context, sessions []catalog.Session, opts UpdateOptions) (UpdateStats, error) {
	var st UpdateStats
	if opts.Open == nil {
		opts.Open = catalog.OSOpen
	}
	digest := listingDigest(sessions, opts)
	if n, ok := ix.listedCurrent(digest); ok {
		st.Unchanged, st.Skipped = n, true
		return st, nil
	}
	// One writer at a time, and the rows compared are read under the
	// lock: read before it, they could be another build's past.
	waited := false
	unlock, err := lock(ctx, ix.path, func() {
		waited = true
		if opts.Waiting != nil {
			opts.Waiting()
		}
	})
	if err != nil {
		return st, err
	}
	defer unlock()
	if waited {
		// The other writer may have indexed this very listing.
		if n, ok := ix.listedCurrent(digest); ok {
			st.Unchanged, st.Skipped = n, true
			return st, nil
		}
	}
	old, err := ix.rows(ctx)
	if err != nil {
		return st, err
	}
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return st, err
	}
	defer tx.Rollback()
	wt := newWtx(tx)
	// Transcripts are read while the rest is planned: a first build's
	// plan writes a row for each session before it can write any text.
	work := make(chan job, len(sessions))
	rd := startReaders(ctx, work, opts.Open)
	n, err := ix.plan(ctx, wt, sessions, old, opts, &st, work)
	close(work)
	if err != nil {
		rd.abandon()
		return st, err
	}
	if err := rd.writeAll(ctx, wt, n, opts, &st); err != nil {
		return st, err
	}
	stamp := ""
	if st.nothingChanged() {
		stamp = fileStamp(ix.path) // under the transaction's lock: see recordListed
	}
	if err := tx.Commit(); err != nil {
		return st, err
	}
	if st.nothingChanged() {
		ix.recordListed(digest, st.Unchanged, stamp)
	}
	return st, nil
}

func (ix *Index) rows(ctx context.Context) (map[string]row, error) {
	// Fingerprints are fetched only for the transcripts that grew.
	rs, err := ix.db.QueryContext(ctx, `SELECT id, key, path, size, mtime, off, title, last, sumstamp, msgs, carry FROM files`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	m := map[string]row{}
	for rs.Next() {
		var r row
		var key string
		var carry int64
		if err := rs.Scan(&r.id, &key, &r.path, &r.size, &r.mtime, &r.off, &r.title, &r.last, &r.sumstamp, &r.msgs.N, &carry); err != nil {
			return nil, err
		}
		r.msgs.Off, r.msgs.Last = r.off, uint64(carry)
		m[key] = r
	}
	return m, rs.Err()
}

// plan adds and removes entries and sends the transcripts to read to
// work, returning how many.
func (ix *Index) plan(ctx context.Context, tx *wtx, sessions []catalog.Session, old map[string]row, opts UpdateOptions, st *UpdateStats, work chan<- job) (int, error) {
	jobs := 0
	emit := func(j job) { work <- j; jobs++ }
	seen := make(map[string]bool, len(sessions))
	for i := range sessions {
		s := &sessions[i]
		key := s.Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		size, mtime := s.SourceSize, s.SourceMTime
		if mtime == 0 {
			size, mtime = statOf(s.Source)
		}
		last := s.LastActivity.UnixNano()
		r, ok := old[key]
		emit := func(j job) { j.session, j.size, j.mtime = s, size, mtime; emit(j) }
		stamp, text, newSummary := summaryOf(s, r.sumstamp, opts)
		if newSummary {
			st.Summaries++
		}
		if !ok {
			id, err := insert(ctx, tx, key, s, last, stamp)
			if err != nil {
				return 0, err
			}
			st.Added++
			// The docs row is written once the transcript is read.
			emit(job{id: id, harness: s.Harness, path: s.Source, title: s.Title, summary: text, reset: true, fresh: true})
			continue
		}
		if r.title != s.Title || r.last != last {
			if err := retitle(ctx, tx, r, s.Title, last); err != nil {
				return 0, err
			}
			st.retitled++
		}
		if newSummary {
			if err := resummarize(ctx, tx, r.id, stamp, text); err != nil {
				return 0, err
			}
		}
		switch {
		case r.path == s.Source && r.size == size && r.mtime == mtime:
			st.Unchanged++
		case r.path == s.Source && size >= r.off:
			var head, tail []byte
			if err := tx.QueryRowContext(ctx, `SELECT head, tail FROM files WHERE id = ?`, r.id).Scan(&head, &tail); err != nil {
				return 0, err
			}
			r.head, r.tail = string(head), string(tail)
			emit(job{id: r.id, harness: s.Harness, path: s.Source, title: s.Title, off: r.off, old: r})
		default:
			emit(job{id: r.id, harness: s.Harness, path: s.Source, title: s.Title, reset: true, old: r})
		}
	}
	for key, r := range old {
		if seen[key] {
			continue
		}
		if opts.Retain != nil && opts.Retain(key) {
			st.retained++
			continue
		}
		if err := remove(ctx, tx, r.id); err != nil {
			return 0, err
		}
		st.Removed++
	}
	return jobs, nil
}

func statOf(path string) (size, mtime int64) {
	if path == "" {
		return 0, 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return -1, 0
	}
	return fi.Size(), fi.ModTime().UnixNano()
}

func insert(ctx context.Context, tx *wtx, key string, s *catalog.Session, last int64, sumstamp string) (int64, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO files(key, path, size, mtime, off, title, last, sumstamp) VALUES(?, ?, -1, 0, 0, ?, ?, ?)`,
		key, s.Source, s.Title, last, sumstamp)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func retitle(ctx context.Context, tx *wtx, r row, title string, last int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE files SET title = ?, last = ? WHERE id = ?`, title, last, r.id); err != nil {
		return err
	}
	if r.title == title {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE docs SET title = ? WHERE rowid = ?`, clean(title), r.id)
	return err
}

// summaryOf returns the stamp of s's summary and whether it is not the
// one indexed; then text is the summary's text ("" when it was removed or
// cannot be read: a broken file is not read again until it changes).
func summaryOf(s *catalog.Session, indexed string, opts UpdateOptions) (stamp, text string, changed bool) {
	if opts.SummaryStamp != nil {
		stamp = opts.SummaryStamp(s)
	}
	if stamp == indexed {
		return stamp, "", false
	}
	if stamp != "" && opts.SummaryText != nil {
		if t, err := opts.SummaryText(s); err == nil {
			text = clean(t)
		}
	}
	return stamp, text, true
}

// resummarize replaces the summary column of an indexed session.
func resummarize(ctx context.Context, tx *wtx, id int64, stamp, text string) error {
	if _, err := tx.ExecContext(ctx, `UPDATE files SET sumstamp = ? WHERE id = ?`, stamp, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE docs SET summary = ? WHERE rowid = ?`, text, id)
	return err
}

func remove(ctx context.Context, tx *wtx, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE rowid = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM files WHERE id = ?`, id)
	return err
}

// readers read the transcripts of the jobs sent to them on every core;
// writeAll writes what they found from the calling goroutine (SQLite has
// one writer). Readers run ahead of the writer while the text read and
// not yet written is under pendingMax: with one result each in hand at
// most (an unbuffered channel), both could wait whenever the writer met a
// run of sessions with much text, leaving a core idle. Reading the
// largest transcripts first was tried: more CPU (FTS5 and the collector
// then handle the largest documents together) and 90 MiB more memory.
type readers struct {
	out    chan *result
	budget *budget
	stop   context.CancelFunc
}

// startReaders starts the readers of the jobs sent to work (closed by
// the caller once every job is sent); the channel's capacity is the
// most jobs there can be.
func startReaders(ctx context.Context, work <-chan job, open catalog.Opener) *readers {
	ctx, stop := context.WithCancel(ctx)
	rd := &readers{out: make(chan *result, cap(work)), budget: newBudget(pendingMax), stop: stop}
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if ctx.Err() != nil {
					continue // the update failed: nothing more is read
				}
				r := readJob(ctx, j, open)
				rd.budget.take(r.textLen())
				rd.out <- r
			}
		}()
	}
	go func() { wg.Wait(); close(rd.out) }()
	return rd
}

// writeAll writes the results of the n jobs as they come.
func (rd *readers) writeAll(ctx context.Context, tx *wtx, n int, opts UpdateOptions, st *UpdateStats) error {
	var firstErr error
	done := 0
	defer rd.stop()
	for r := range rd.out {
		done++
		if firstErr == nil {
			if firstErr = write(ctx, tx, r, st); firstErr != nil {
				rd.stop()
			}
		}
		rd.budget.give(r.textLen())
		if opts.Progress != nil {
			opts.Progress(done, n)
		}
	}
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// abandon lets the readers finish without writing what they read (the
// update failed before writing).
func (rd *readers) abandon() {
	rd.stop()
	go func() {
		for r := range rd.out {
			rd.budget.give(r.textLen())
		}
	}()
}

// pendingMax bounds the text read and not yet written (beyond the one
// result each reader may hold while it waits); a variable for tests.
var pendingMax = 4 << 20

// textLen is how many bytes of text r holds.
func (r *result) textLen() int {
	n := 0
	for i := range r.cols {
		n += r.cols[i].Len()
	}
	return n
}

// budget counts bytes held, up to a limit: take waits while taking n
// would pass it, unless nothing is held (a result larger than the limit
// goes through alone).
type budget struct {
	mu   sync.Mutex
	cond *sync.Cond
	held int
	max  int
}

func newBudget(max int) *budget {
	b := &budget{max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) take(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.held > 0 && b.held+n > b.max {
		b.cond.Wait()
	}
	b.held += n
}

func (b *budget) give(n int) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// readJob reads a transcript from the job's offset, falling back to the
// start when the bytes already read are not what they were.
func readJob(ctx context.Context, j job, open catalog.Opener) *result {
	r := &result{job: j}
	if r, ok := readSession(ctx, j); ok {
		return r
	}
	if j.path == "" {
		r.reset, r.size, r.end = true, 0, 0
		return r
	}
	f, err := open(j.path)
	if err != nil {
		// Gone between listing and reading: index nothing for it now.
		r.reset, r.size, r.end = true, -1, 0
		return r
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		r.err = err
		return r
	}
	r.size, r.mtime = fi.Size(), fi.ModTime().UnixNano()
	if !r.reset {
		h, t := fingerprints(f, j.off)
		if h != j.old.head || t != j.old.tail || r.size < j.off {
			r.reset, r.off = true, 0
		}
	}
	if !r.reset {
		r.msgs = j.old.msgs // go on counting from off
	}
	sec := io.NewSectionReader(f, r.off, r.size-r.off)
	n, err := catalog.TextsCounted(j.harness, sec, &r.msgs, func(t catalog.Text) {
		c := col(t.Kind)
		if r.cols[c].Len() > 0 {
			r.cols[c].WriteByte('\n')
		}
		r.cols[c].WriteString(clean(t.Text))
	})
	if err != nil {
		r.err = fmt.Errorf("%s: %w", j.path, err)
		return r
	}
	r.end = r.off + n
	r.head, r.tail = fingerprints(f, r.end)
	return r
}

// readSession reads the whole session of a job whose agent keeps its
// sessions as rows of a database (ok false: its sessions are transcript
// files). The texts replace the row's, recorded at the session's listed
// stamp; one that cannot be read is recorded as failed until the stamp
// changes.
func readSession(ctx context.Context, j job) (*result, bool) {
	if j.session == nil {
		return nil, false
	}
	r := &result{job: j}
	r.reset, r.off = true, 0
	ok, err := catalog.SessionTexts(ctx, j.session, true, &r.msgs, func(t catalog.Text) {
		c := col(t.Kind)
		if r.cols[c].Len() > 0 {
			r.cols[c].WriteByte('\n')
		}
		r.cols[c].WriteString(clean(t.Text))
	})
	if !ok {
		return nil, false
	}
	r.err = err
	// No byte offset: the next change reads it whole again.
	r.size, r.mtime, r.end = j.size, j.mtime, 0
	return r, true
}

// fingerprints hash the first fpLen bytes and the fpLen bytes before off.
func fingerprints(f io.ReaderAt, off int64) (head, tail string) {
	sum := func(from, to int64) string {
		if to <= from {
			return ""
		}
		b := make([]byte, to-from)
		if n, _ := f.ReadAt(b, from); int64(n) != to-from {
			return "short"
		}
		h := sha256.Sum256(b)
		return string(h[:16])
	}
	return sum(0, min(off, fpLen)), sum(max(0, off-fpLen), off)
}

// col is the docs column a text kind goes to. Titles a transcript records
// go with the prompts: the title column holds the session's current title.
func col(k catalog.TextKind) int {
	switch k {
	case catalog.TextAssistant:
		return colAssistant
	case catalog.TextTool:
		return colTool
	}
	return colPrompt
}

// write stores what a job read: the texts replace the row's (reset) or
// are appended to them.
func write(ctx context.Context, tx *wtx, r *result, st *UpdateStats) error {
	var texts [numCols]string
	if r.err != nil {
		// One unreadable transcript does not stop the others: its entry
		// keeps the title only and is read from the start next time.
		r.reset, r.size, r.mtime, r.off, r.end = true, -2, 0, 0, 0
		r.msgs = catalog.MessageCount{}
	} else {
		for i := range texts {
			texts[i] = r.cols[i].String()
		}
	}
	st.BytesRead += r.end - r.off
	var err error
	switch {
	case r.fresh:
		_, err = tx.ExecContext(ctx, `INSERT INTO docs(rowid, title, summary, prompt, assistant, tool) VALUES(?, ?, ?, ?, ?, ?)`,
			r.id, clean(r.title), r.summary, texts[colPrompt], texts[colAssistant], texts[colTool])
	case r.reset:
		// The summary column is the summary's, not the transcript's: kept.
		st.Reindexed++
		_, err = tx.ExecContext(ctx, `UPDATE docs SET title = ?, prompt = ?, assistant = ?, tool = ? WHERE rowid = ?`,
			clean(r.title), texts[colPrompt], texts[colAssistant], texts[colTool], r.id)
	case texts != [numCols]string{}:
		st.Appended++
		// FTS5 re-tokenizes the row: the session's text, not its
		// transcript, which is mostly tool output that is not indexed.
		_, err = tx.ExecContext(ctx, `UPDATE docs SET prompt = prompt || ?, assistant = assistant || ?, tool = tool || ? WHERE rowid = ?`,
			sep(texts[colPrompt]), sep(texts[colAssistant]), sep(texts[colTool]), r.id)
	default:
		st.Appended++
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE files SET size = ?, mtime = ?, off = ?, head = ?, tail = ?, msgs = ?, carry = ? WHERE id = ?`,
		r.size, r.mtime, r.end, nilIfEmpty(r.head), nilIfEmpty(r.tail), r.msgs.N, int64(r.msgs.Last), r.id)
	return err
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return "\n" + s
}

// Snippet markers: control characters removed from indexed text, so a
// marker in a snippet is always one the index put there.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// clean drops the marker bytes from text before it is indexed.
func clean(s string) string {
	// Three IndexByte scans (vectorized) beat one ContainsAny over a
	// build's ~190 MB of text.
	if strings.IndexByte(s, 0) < 0 && strings.IndexByte(s, markOpen[0]) < 0 && strings.IndexByte(s, markClose[0]) < 0 {
		return s
	}
	return string(bytes.Map(func(r rune) rune {
		if r == 0 || r == 2 || r == 3 {
			return ' '
		}
		return r
	}, []byte(s)))
}

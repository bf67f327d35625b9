package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Codec is the compression of archived copies (zstd). The archive package
// does not link it itself: tether-hot, which only links transcripts and
// restores links, must start fast, and the zstd package alone adds a
// megabyte and ~0.2–0.6 ms of package init to every hook. The full tether
// links archive/zstdcodec, which registers it (SetCodec); without it a
// copy or a restore of a compressed copy fails with ErrNoCodec, which
// tether-hot answers by handing the command to tether.
type Codec interface {
	// NewEncoder returns an encoder; Store reuses it (Reset) across files.
	NewEncoder() (Encoder, error)
	// NewDecoder reads the frames of r, skippable ones ignored.
	NewDecoder(r io.Reader) (io.ReadCloser, error)
}

// Encoder compresses what is written to it into one frame on the writer
// of its last Reset; Close ends the frame.
type Encoder interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// ErrNoCodec is returned (wrapped) when a compressed copy must be written
// or read by a binary that does not link the codec (tether-hot).
var ErrNoCodec = errors.New("this binary cannot compress or decompress archive copies (only tether can)")

var (
	codecMu sync.RWMutex
	codec   Codec
)

// SetCodec registers the codec of compressed copies (archive/zstdcodec
// calls it when it is linked) and returns the one it replaces (tests put
// it back).
func SetCodec(c Codec) (previous Codec) {
	codecMu.Lock()
	defer codecMu.Unlock()
	previous, codec = codec, c
	return previous
}

func currentCodec() (Codec, error) {
	codecMu.RLock()
	defer codecMu.RUnlock()
	if codec == nil {
		return nil, ErrNoCodec
	}
	return codec, nil
}

// zstdMagic starts every zstd data frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// The trailer is a zstd skippable frame (magic 0x184D2A5E, ignored by every
// decoder) written after each data frame: it proves what the archive holds.
const (
	trailerTag     = "tthr"
	trailerPayload = 4 + 8 + 8 + 8 + sumSize
	trailerSize    = 8 + trailerPayload
)

// sumSize is the length of a SHA-256 sum.
const sumSize = 32

var trailerMagic = []byte{0x5e, 0x2a, 0x4d, 0x18}

// trailer is the proof of a compressed copy: the first Size bytes of the
// source, whose SHA-256 is Sum, are in the archive; ModNano and Ino are the
// source's mtime and inode at that time (a cheap "nothing changed" test).
type trailer struct {
	Size    int64
	ModNano int64
	Ino     uint64
	Sum     [sumSize]byte
}

func (t trailer) encode() []byte {
	b := make([]byte, 0, trailerSize)
	b = append(b, trailerMagic...)
	b = binary.LittleEndian.AppendUint32(b, trailerPayload)
	b = append(b, trailerTag...)
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Size))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.ModNano))
	b = binary.LittleEndian.AppendUint64(b, t.Ino)
	return append(b, t.Sum[:]...)
}

func decodeTrailer(b []byte) (trailer, bool) {
	if len(b) != trailerSize || !bytes.Equal(b[:4], trailerMagic) ||
		binary.LittleEndian.Uint32(b[4:8]) != trailerPayload || string(b[8:12]) != trailerTag {
		return trailer{}, false
	}
	var t trailer
	t.Size = int64(binary.LittleEndian.Uint64(b[12:20]))
	t.ModNano = int64(binary.LittleEndian.Uint64(b[20:28]))
	t.Ino = binary.LittleEndian.Uint64(b[28:36])
	copy(t.Sum[:], b[36:])
	return t, t.Size >= 0
}

// readTrailer returns the proof at the end of a compressed stored file; ok
// is false when path is missing, plain (a link) or not one of ours.
func readTrailer(path string) (t trailer, ok bool) {
	f, err := openNoFollow(path)
	if err != nil {
		return trailer{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() < int64(len(zstdMagic))+trailerSize {
		return trailer{}, false
	}
	head := make([]byte, 4)
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, zstdMagic) {
		return trailer{}, false
	}
	b := make([]byte, trailerSize)
	if _, err := f.ReadAt(b, fi.Size()-trailerSize); err != nil {
		return trailer{}, false
	}
	return decodeTrailer(b)
}

func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// Test hooks: a writer wrapper for injected disk-full or I/O errors, and
// a call between the live file's fstat and its read (a transcript that
// changes meanwhile).
var (
	wrapTemp  = func(w io.Writer) io.Writer { return w }
	afterStat = func(f *os.File) {}
)

// ErrChanged is returned (wrapped) when the live file changed while it was
// read: fewer bytes than its size said. Nothing was replaced; the next run
// archives it again.
var ErrChanged = errors.New("the transcript changed while it was archived (it shrank); the previous copy is kept")

// countingReader counts what its reader gave.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (s *Store) archiveCopy(livePath, dst string, live fs.FileInfo) (Result, error) {
	res := Result{Stored: dst}
	keepPlain := false
	if fi, err := os.Lstat(dst); err == nil {
		if err := checkStored(fi, dst); err != nil {
			return res, err
		}
		if fi.Mode().IsRegular() && !IsCompressed(dst) {
			// A link left from link mode, to an inode the live file no
			// longer is: the archive's may be its last link.
			if keepPlain, err = s.onlyCopy(livePath, dst, live, fi); err != nil {
				return res, err
			}
		}
	}
	old, haveOld := readTrailer(dst)
	if haveOld && old.Size == live.Size() && old.ModNano == live.ModTime().UnixNano() && old.Ino == inode(live) {
		res.Action = Unchanged
		return res, nil
	}
	if _, err := currentCodec(); err != nil {
		return res, err
	}
	f, err := os.Open(livePath)
	if err != nil {
		return res, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return res, err
	}
	size := fi.Size()
	afterStat(f)
	h := sha256.New()
	from := int64(0)
	// replaced: the live file no longer starts with what the stored copy
	// holds (it shrank, or was rewritten): that copy is kept aside, as
	// it may be the only one left of what the session said.
	replaced := haveOld
	if haveOld && size >= old.Size {
		// Prove the live file still starts with what was copied.
		if _, err := io.CopyN(h, f, old.Size); err != nil {
			if errors.Is(err, io.EOF) {
				err = ErrChanged
			}
			return res, fmt.Errorf("read %s: %w", livePath, err)
		}
		if bytes.Equal(h.Sum(nil), old.Sum[:]) {
			from, replaced = old.Size, false
		} else {
			h.Reset()
		}
	}
	if s.Budget > 0 && s.spent+(size-from) > s.Budget && s.spent > 0 {
		s.Skipped++
		res.Action = Unchanged
		return res, errBudget
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return res, err
	}
	t := trailer{Size: size, ModNano: fi.ModTime().UnixNano(), Ino: inode(fi)}
	err = s.replace(dst, func(w io.Writer) error {
		if from > 0 {
			// Keep every earlier frame (and trailer) byte for byte.
			if err := copyFile(w, dst); err != nil {
				return err
			}
		}
		if size > from || from == 0 {
			// (An empty transcript still gets a data frame: the zstd
			// magic is what marks a stored file as a copy.)
			// The trailer claims size bytes: prove they were all read
			// (a transcript truncated since the fstat gives fewer, with
			// no error), else the good copy would be replaced by less.
			cr := &countingReader{r: io.LimitReader(f, size-from)}
			if err := s.compress(w, io.TeeReader(cr, h)); err != nil {
				return err
			}
			if cr.n != size-from {
				return fmt.Errorf("%s: read %d of %d bytes: %w", livePath, from+cr.n, size, ErrChanged)
			}
		}
		copy(t.Sum[:], h.Sum(nil))
		_, err := w.Write(t.encode())
		return err
	}, func() error {
		if !keepPlain && (!replaced || old.Size == 0) {
			return nil
		}
		var err error
		res.Kept, err = s.keep(dst)
		return err
	})
	if err != nil {
		return res, err
	}
	s.spent += size - from
	res.Bytes = size - from
	res.Action = Copied
	if from > 0 {
		res.Action = Appended
	}
	return res, nil
}

// errBudget marks a file left for a later run (Store.Budget).
var errBudget = errors.New("compression budget for this run used up")

// IsBudget reports an Archive error that only means "later".
func IsBudget(err error) bool { return errors.Is(err, errBudget) }

// compress writes r to w as one zstd frame. The encoder (megabytes of
// tables) is made once per Store and reset for each file.
func (s *Store) compress(w io.Writer, r io.Reader) error {
	if s.enc == nil {
		c, err := currentCodec()
		if err != nil {
			return err
		}
		enc, err := c.NewEncoder()
		if err != nil {
			return err
		}
		s.enc = enc
	}
	s.enc.Reset(w)
	if _, err := io.Copy(s.enc, r); err != nil {
		s.enc.Close()
		return fmt.Errorf("compress: %w", err)
	}
	if err := s.enc.Close(); err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	return nil
}

func copyFile(w io.Writer, path string) error {
	f, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// replace writes path through a 0600 temporary file in its directory,
// fsynced and renamed over it: a crash or an error leaves the previous
// file (or none) and no temporary file behind.
func (s *Store) replace(path string, fill func(w io.Writer) error, beforeRename func() error) (err error) {
	dir := filepath.Dir(path)
	if err := s.checkDirs(dir, true); err != nil {
		return err
	}
	tmp, err := os.OpenFile(tempName(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(wrapTemp(tmp)); err != nil {
		if errors.Is(err, ErrChanged) {
			return err // about the source, not the temporary file
		}
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if !s.Batch {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", tmp.Name(), err)
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err = beforeRename(); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if s.Batch {
		s.dirty = append(s.dirty, path)
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// openNoFollow opens a stored file for reading, refusing a symlink.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// readNoFollow reads a file of the store, refusing a symlink.
func readNoFollow(path string) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// IsCompressed reports whether a stored file is a compressed copy.
func IsCompressed(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 4)
	_, err = io.ReadFull(f, b)
	return err == nil && IsCompressedHeader(b)
}

// IsCompressedHeader is IsCompressed for a file's first bytes, already
// read (a reader that opens the file anyway need not open it twice).
func IsCompressedHeader(head []byte) bool {
	return len(head) >= len(zstdMagic) && bytes.Equal(head[:len(zstdMagic)], zstdMagic)
}

// Decompress writes the transcript a stored file holds to w: a link is
// copied as is, a compressed copy is decoded up to its last complete
// trailer (everything it proves). It returns the number of bytes written.
func Decompress(w io.Writer, path string) (int64, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if n < 4 || !bytes.Equal(head, zstdMagic) {
		return io.Copy(w, f)
	}
	t, ok := readTrailer(path)
	if !ok {
		return 0, fmt.Errorf("%s: compressed archive copy without a valid trailer", path)
	}
	c, err := currentCodec()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	dec, err := c.NewDecoder(f)
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	h := sha256.New()
	n64, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(dec, t.Size))
	if err != nil {
		return n64, fmt.Errorf("%s: %w", path, err)
	}
	if n64 != t.Size || !bytes.Equal(h.Sum(nil), t.Sum[:]) {
		return n64, fmt.Errorf("%s: archive copy does not match its recorded size and hash", path)
	}
	return n64, nil
}

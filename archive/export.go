package archive

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Exported sessions. An agent whose sessions are rows of its database
// (OpenCode) has no transcript to link or copy: the archive keeps the
// agent's own export of each session instead, one compressed copy per
// session at Dir/<harness>/<id>.json (ModeExport). Its trailer is the
// copies' trailer, with the source's mtime and inode replaced by what
// tells one export of the session from the next: the session's update
// time (ModNano) and message count (Ino), as the agent's listing gave
// them when it was exported. Comparing them with a new listing costs one
// 68-byte read, so an unchanged session is never exported again.

// ModeExport is the index mode of an exported session.
const ModeExport = "export"

// Exported is the Result action of a new or refreshed export.
const Exported = "exported"

// ExportExt ends the name of an exported session.
const ExportExt = ".json"

// Stamp tells one export of a session from another.
type Stamp struct {
	UpdatedNano int64
	Messages    int64
}

// ExportPath is where the export of harness's session id is stored. The
// id becomes a file name: one with a separator or a leading dot is
// refused.
func (s *Store) ExportPath(harness, id string) (string, error) {
	if harness == "" || strings.ContainsAny(harness, `/\`) {
		return "", fmt.Errorf("archive: bad harness name %q", harness)
	}
	if id == "" || strings.ContainsAny(id, "/\\\x00") || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("archive: %q cannot name an exported session", id)
	}
	return filepath.Join(s.HarnessDir(harness), id+ExportExt), nil
}

// ExportID is the session id of a stored export's path ("" when path is
// not one).
func ExportID(path string) string {
	id, ok := strings.CutSuffix(filepath.Base(path), ExportExt)
	if !ok || id == "" || strings.HasPrefix(id, ".") {
		return ""
	}
	return id
}

// ExportStamp is the stamp of the stored export of id; ok is false when
// none is stored (or it is not one of the archive's copies).
func (s *Store) ExportStamp(harness, id string) (Stamp, bool) {
	p, err := s.ExportPath(harness, id)
	if err != nil {
		return Stamp{}, false
	}
	t, ok := readTrailer(p)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{UpdatedNano: t.ModNano, Messages: int64(t.Ino)}, true
}

// PutExport stores data, the export of harness's session id made when it
// had stamp st, as one compressed frame and its trailer, replacing the
// stored one through a temporary file and a rename. When the stored
// export had more messages than the new one (the session was reverted or
// compacted and pruned), it is kept aside first (Result.Kept): it may be
// the only copy of what the session said.
func (s *Store) PutExport(harness, id string, data []byte, st Stamp) (Result, error) {
	dst, err := s.ExportPath(harness, id)
	if err != nil {
		return Result{}, err
	}
	res := Result{Stored: dst, LiveMTime: time.Unix(0, st.UpdatedNano)}
	if err := s.checkDirs(filepath.Dir(dst), false); err != nil {
		return res, err
	}
	if fi, err := os.Lstat(dst); err == nil {
		if err := checkStored(fi, dst); err != nil {
			return res, err
		}
	}
	old, haveOld := readTrailer(dst)
	if haveOld && old.ModNano == st.UpdatedNano && old.Ino == uint64(st.Messages) {
		res.Action = Unchanged
		return res, nil
	}
	if _, err := currentCodec(); err != nil {
		return res, err
	}
	sum := sha256.Sum256(data)
	t := trailer{Size: int64(len(data)), ModNano: st.UpdatedNano, Ino: uint64(max(st.Messages, 0)), Sum: sum}
	err = s.replace(dst, func(w io.Writer) error {
		if err := s.compress(w, bytes.NewReader(data)); err != nil {
			return err
		}
		_, err := w.Write(t.encode())
		return err
	}, func() error {
		if !haveOld || int64(old.Ino) <= st.Messages {
			return nil
		}
		var err error
		res.Kept, err = s.keep(dst)
		return err
	})
	if err != nil {
		return res, err
	}
	s.spent += int64(len(data))
	res.Action, res.Bytes = Exported, int64(len(data))
	return res, nil
}

// ReadExport is the export stored at path, decompressed and checked
// against its trailer.
func ReadExport(path string) ([]byte, error) {
	var b bytes.Buffer
	if !IsCompressed(path) {
		return nil, fmt.Errorf("%s: not an archived export", path)
	}
	if _, err := Decompress(&b, path); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

package trim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/agent/claude"
)

// RestoreResult says what Restore did.
type RestoreResult struct {
	Path   string // the transcript restored (the Target of the path given)
	Backup string // the backup it was restored from
	// Kept is where the replaced content was kept ("" when nothing was
	// replaced, or it equalled the backup).
	Kept string
	// AlreadyRestored: the transcript already equalled its backup, so
	// nothing was written.
	AlreadyRestored bool
	// Added counts records of the replaced content that the backup does
	// not hold: written after the trim, they are only in Kept now.
	Added int
}

// Restore puts <target>.bak back in place. The content it replaces is kept
// as <target>.pre-restore (rotated like backups), so nothing is lost: the
// session may have grown since the trim. A transcript that already equals
// its backup is left alone.
func Restore(path string) (RestoreResult, error) {
	path = Target(path)
	res := RestoreResult{Path: path, Backup: path + ".bak"}
	if _, err := os.Stat(res.Backup); err != nil {
		return res, fmt.Errorf("no backup to restore: %w", err)
	}
	unlock, err := Lock(path)
	if err != nil {
		return res, err
	}
	defer unlock()
	removeStaleTemps(path)
	RemoveLeftovers(filepath.Dir(path)) // other sessions' dead trims
	if _, err := os.Stat(path); err == nil {
		same, err := sameContent(path, res.Backup)
		if err != nil {
			return res, err
		}
		if same {
			res.AlreadyRestored = true
			return res, nil
		}
		if res.Added, err = addedRecords(path, res.Backup); err != nil {
			return res, err
		}
		res.Kept = path + ".pre-restore"
		if err := rotate(res.Kept); err != nil {
			return res, err
		}
		if err := ops.link(path, res.Kept); err != nil {
			if err := copyFile(path, res.Kept); err != nil {
				return res, fmt.Errorf("keep current %s: %w", res.Kept, err)
			}
		}
	}
	if err := copyFile(res.Backup, path); err != nil {
		return res, fmt.Errorf("restore %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return res, nil
}

// sameContent compares two files byte for byte.
func sameContent(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	sa, _ := fa.Stat()
	sb, _ := fb.Stat()
	if sa == nil || sb == nil || sa.Size() != sb.Size() {
		return false, nil
	}
	ba, bb := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if errors.Is(ea, io.EOF) || errors.Is(ea, io.ErrUnexpectedEOF) {
			return errors.Is(eb, io.EOF) || errors.Is(eb, io.ErrUnexpectedEOF), nil
		}
		if ea != nil {
			return false, ea
		}
		if eb != nil {
			return false, eb
		}
	}
}

// addedRecords counts the records of current whose uuid backup lacks: a
// trim keeps the uuids of what it keeps, so those were written after it.
func addedRecords(current, backup string) (int, error) {
	have := map[string]bool{}
	if err := eachUUID(backup, func(u string) { have[u] = true }); err != nil {
		return 0, err
	}
	n := 0
	err := eachUUID(current, func(u string) {
		if !have[u] {
			n++
		}
	})
	return n, err
}

func eachUUID(path string, fn func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f)
	for {
		line, _, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if u := gjson.GetBytes(line, claude.KeyUUID); u.Type == gjson.String && u.Str != "" {
			fn(u.Str)
		}
	}
}

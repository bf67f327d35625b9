package eventlog

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/tidwall/gjson"

	"github.com/tether-dev/tether/internal/safeio"
)

// Record is one parsed line of the log.
type Record struct {
	Time      time.Time
	Level     string
	Event     string
	SessionID string
	Harness   string
	Root      string
	// Raw is the line as written (without the newline).
	Raw []byte
}

// Parse parses one line. ok is false for a line that is not a JSON object
// with an event name; such lines (a torn write after a crash, a stray edit)
// are skipped by readers rather than failing them.
func Parse(line []byte) (Record, bool) {
	if !gjson.ValidBytes(line) {
		return Record{}, false
	}
	res := gjson.GetManyBytes(line, KeyTime, KeyLevel, KeyEvent, KeySessionID, KeyHarness, KeyIdentityRoot)
	if res[2].Str == "" {
		return Record{}, false
	}
	t, _ := time.Parse(time.RFC3339Nano, res[0].Str)
	return Record{
		Time: t, Level: res[1].Str, Event: res[2].Str, SessionID: res[3].Str,
		Harness: res[4].Str, Root: res[5].Str, Raw: line,
	}, true
}

// Fields calls fn for every key that is not one of the standard ones, in
// the order written.
func (r Record) Fields(fn func(key string, value gjson.Result)) {
	gjson.ParseBytes(r.Raw).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case KeyTime, KeyLevel, KeyEvent, KeySessionID, KeyHarness, KeyIdentityRoot:
		default:
			fn(k.Str, v)
		}
		return true
	})
}

// ReadAll reads the rotated file and then the current one, calling fn for
// every valid record, oldest first. Missing files are empty. The returned
// Follower continues exactly where the reading stopped.
func ReadAll(path string, fn func(Record)) (*Follower, error) {
	if _, _, err := readFrom(path+".1", 0, fn); err != nil {
		return nil, err
	}
	off, id, err := readFrom(path, 0, fn)
	if err != nil {
		return nil, err
	}
	return &Follower{path: path, offset: off, ino: id}, nil
}

// readFrom reads whole lines of p starting at offset and returns the offset
// after the last whole line, so a follower can resume there without ever
// seeing half a record, and the identity of the file it read.
func readFrom(p string, offset int64, fn func(Record)) (int64, fileID, error) {
	// Never a wait on a FIFO planted as the log.
	f, err := safeio.OpenOwn(p)
	if errors.Is(err, fs.ErrNotExist) {
		return offset, fileID{}, nil
	}
	if err != nil {
		return offset, fileID{}, err
	}
	defer f.Close()
	var id fileID
	if st, err := f.Stat(); err == nil {
		id = idOf(st)
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			return offset, id, err
		}
	}
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return offset, id, nil // a partial last line is left for later
		}
		if err != nil {
			return offset, id, err
		}
		offset += int64(len(line))
		if rec, ok := Parse(line[:len(line)-1]); ok {
			fn(rec)
		}
	}
}

// Follower reads records appended to a log as they arrive, across
// rotations.
type Follower struct {
	path   string
	offset int64
	ino    fileID
}

type fileID struct{ dev, ino uint64 }

// Poll delivers the records appended since the last call. When the file was
// rotated, the rest of the old file (now <path>.1) is read first.
func (f *Follower) Poll(fn func(Record)) error {
	st, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if id := idOf(st); id != f.ino {
		if f.ino != (fileID{}) {
			if old, err := os.Stat(f.path + ".1"); err == nil && idOf(old) == f.ino {
				if _, _, err := readFrom(f.path+".1", f.offset, fn); err != nil {
					return err
				}
			}
		}
		f.ino, f.offset = id, 0
	} else if st.Size() < f.offset {
		f.offset = 0 // truncated in place
	}
	f.offset, _, err = readFrom(f.path, f.offset, fn)
	return err
}

package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// RecordFile is where install records what it wrote, under tether's
// state directory.
const RecordFile = "hooks-installed.json"

// Record is what tether wrote into each settings file, so that uninstall
// removes exactly that and restores what a forced install replaced. Files
// are keyed by their resolved absolute path (a symlinked settings.json is
// recorded under its target).
type Record struct {
	Files map[string]*FileRecord `json:"files"`
}

// FileRecord is one settings file's part of the record.
type FileRecord struct {
	// Commands are the hook and statusLine commands tether wrote there.
	Commands []string `json:"commands"`
	// UserStatusLine is the user's statusLine (raw JSON) that the first
	// forced install replaced; later installs never overwrite it.
	UserStatusLine string `json:"userStatusLine,omitempty"`
}

// RecordKey is the key of a settings file in the record.
func RecordKey(path string) string {
	if p, err := atomicfile.Resolve(path); err == nil {
		path = p
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// LoadRecord reads the record; a missing file is an empty record.
func LoadRecord(path string) (Record, error) {
	r := Record{Files: map[string]*FileRecord{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	if r.Files == nil {
		r.Files = map[string]*FileRecord{}
	}
	return r, nil
}

// Save writes the record atomically (0600).
func (r Record) Save(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

// Owner is the recognition of tether's entries in one settings file.
func (r Record) Owner(key string, current ...string) Owner {
	o := Owner{Current: current}
	if fr := r.Files[key]; fr != nil {
		o.Recorded = append([]string{}, fr.Commands...)
	}
	return o
}

// Remember adds commands to a file's record.
func (r Record) Remember(key string, commands ...string) *FileRecord {
	fr := r.Files[key]
	if fr == nil {
		fr = &FileRecord{}
		r.Files[key] = fr
	}
	for _, c := range commands {
		if c != "" && !slices.Contains(fr.Commands, c) {
			fr.Commands = append(fr.Commands, c)
		}
	}
	return fr
}

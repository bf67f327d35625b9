package state

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// HooksRecord is what `tether hooks install` wrote into each settings
// file, so that uninstall removes exactly that and restores what a forced
// install replaced. Files are keyed by HooksRecordKey. It is kept in
// HooksRecordPath.
type HooksRecord struct {
	Files map[string]*HooksFileRecord `json:"files"`
}

// HooksFileRecord is one settings file's part of the record.
type HooksFileRecord struct {
	// Commands are the hook and statusLine commands tether wrote there.
	Commands []string `json:"commands"`
	// UserStatusLine is the user's statusLine (raw JSON) that the first
	// forced install replaced; later installs never overwrite it.
	UserStatusLine string `json:"userStatusLine,omitempty"`
	// CreatedDirs are the directories install created for a plugin file
	// (agent.PluginInstaller), deepest first: uninstall removes those
	// left empty, so the tree is as it was.
	CreatedDirs []string `json:"createdDirs,omitempty"`
}

// HooksRecordKey is the key of a settings file in the record: its resolved
// absolute path (a symlinked settings.json is recorded under its target).
func HooksRecordKey(path string) string {
	if p, err := atomicfile.Resolve(path); err == nil {
		path = p
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// LoadHooksRecord reads the record; a missing file is an empty record.
func LoadHooksRecord(stateDir string) (HooksRecord, error) {
	r := HooksRecord{Files: map[string]*HooksFileRecord{}}
	if err := readJSON(HooksRecordPath(stateDir), "a record of installed hooks", &r); err != nil {
		return r, err
	}
	if r.Files == nil {
		r.Files = map[string]*HooksFileRecord{}
	}
	return r, nil
}

// Save writes the record atomically (0600).
func (r HooksRecord) Save(stateDir string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return write(HooksRecordPath(stateDir), append(data, '\n'), false)
}

// Commands are the commands recorded for the file with key (a copy).
func (r HooksRecord) Commands(key string) []string {
	if fr := r.Files[key]; fr != nil {
		return slices.Clone(fr.Commands)
	}
	return nil
}

// Remember adds commands to a file's record.
func (r HooksRecord) Remember(key string, commands ...string) *HooksFileRecord {
	fr := r.Files[key]
	if fr == nil {
		fr = &HooksFileRecord{}
		r.Files[key] = fr
	}
	for _, c := range commands {
		if c != "" && !slices.Contains(fr.Commands, c) {
			fr.Commands = append(fr.Commands, c)
		}
	}
	return fr
}

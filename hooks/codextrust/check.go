package codextrust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/tether-dev/tether/internal/atomicfile"
)

// TrustStatus compares the trust records Codex would need (want, from
// CodexTrust) with the ones config.toml holds.
type TrustStatus struct {
	Want int
	// Missing have no record; Stale have a record whose hash is not the
	// hook's (the hook changed after it was trusted). Codex skips both.
	Missing, Stale int
}

// Trusted is true when Codex runs every hook.
func (s TrustStatus) Trusted() bool { return s.Missing == 0 && s.Stale == 0 }

// CheckCodexTrust reads config.toml's content (nil when there is none) and
// counts the hooks in want that Codex would not run.
func CheckCodexTrust(config []byte, want []TrustEntry) (TrustStatus, error) {
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(config), &cfg); err != nil {
		return TrustStatus{}, fmt.Errorf("not valid TOML: %w", err)
	}
	st := TrustStatus{Want: len(want)}
	for _, e := range want {
		rec, ok := cfg.Hooks.State[e.Key]
		switch {
		case !ok || rec.TrustedHash == "":
			st.Missing++
		case rec.TrustedHash != e.Hash:
			st.Stale++
		}
	}
	return st, nil
}

// trustedFile lists the Codex hooks files tether installed with --trust,
// so `doctor --fix` trusts them again after changing them, and never
// trusts hooks the user meant to review.
func trustedFile(stateDir string) string { return filepath.Join(stateDir, "codex-trusted.json") }

type trustedList struct {
	HooksFiles []string `json:"hooks_files"`
}

// InstalledWithTrust reports whether tether last installed hooksPath with
// --trust.
func InstalledWithTrust(stateDir, hooksPath string) bool {
	l, _ := readTrusted(stateDir)
	return slices.Contains(l.HooksFiles, hooksPath)
}

// RecordTrust remembers (on) or forgets whether hooksPath was installed
// with --trust.
func RecordTrust(stateDir, hooksPath string, on bool) error {
	l, err := readTrusted(stateDir)
	if err != nil {
		return err
	}
	has := slices.Contains(l.HooksFiles, hooksPath)
	switch {
	case on && !has:
		l.HooksFiles = append(l.HooksFiles, hooksPath)
	case !on && has:
		l.HooksFiles = slices.DeleteFunc(l.HooksFiles, func(p string) bool { return p == hooksPath })
	default:
		return nil
	}
	data, _ := json.Marshal(l)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteBytes(trustedFile(stateDir), append(data, '\n'), atomicfile.Options{Perm: 0o600})
}

func readTrusted(stateDir string) (trustedList, error) {
	var l trustedList
	data, err := os.ReadFile(trustedFile(stateDir))
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return trustedList{}, fmt.Errorf("%s: %w", trustedFile(stateDir), err)
	}
	return l, nil
}

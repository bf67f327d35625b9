package state

import (
	"encoding/json"
	"slices"
)

// The Codex hooks files tether installed with --trust (CodexTrustedPath),
// so `doctor --fix` trusts them again after changing them, and never
// trusts hooks the user meant to review.
type codexTrusted struct {
	HooksFiles []string `json:"hooks_files"`
}

// CodexInstalledWithTrust reports whether tether last installed the Codex
// hooks file hooksPath with --trust.
func CodexInstalledWithTrust(stateDir, hooksPath string) bool {
	l, _ := readCodexTrusted(stateDir)
	return slices.Contains(l.HooksFiles, hooksPath)
}

// RecordCodexTrust remembers (on) or forgets whether hooksPath was
// installed with --trust.
func RecordCodexTrust(stateDir, hooksPath string, on bool) error {
	l, err := readCodexTrusted(stateDir)
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
	return write(CodexTrustedPath(stateDir), append(data, '\n'), false)
}

func readCodexTrusted(stateDir string) (codexTrusted, error) {
	var l codexTrusted
	if err := readJSON(CodexTrustedPath(stateDir), "a list of trusted hooks files", &l); err != nil {
		return codexTrusted{}, err
	}
	return l, nil
}

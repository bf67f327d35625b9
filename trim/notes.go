package trim

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DisableEnv turns every automatic trim off when set to a true value.
const DisableEnv = "TETHER_DISABLE_TRIM"

// Disabled reports whether automatic trims are turned off
// (TETHER_DISABLE_TRIM=1, true, yes or on). Explicit `tether trim` runs
// ignore it.
func Disabled(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(DisableEnv))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// DefaultNotes are the notes files looked for, in order, in the identity
// root when no --keep-file is given.
var DefaultNotes = []string{".tether/notes.md", ".loop/notes.md"}

// Notes is what a notes file asks of the trimmer.
type Notes struct {
	Path  string   // the file read ("" when none was found)
	Keep  []string // KEEP: paths, as written
	Reset bool     // a RESET: TRUE line
}

// ReadNotes parses KEEP: and RESET: lines (case-insensitive keys, anywhere
// on a line after optional list or quote markers). KEEP takes
// whitespace- or comma-separated paths, optionally in backquotes.
func ReadNotes(path string) (Notes, error) {
	n := Notes{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return n, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t->*+")
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.ToUpper(strings.TrimSpace(key)) {
		case "KEEP":
			for _, p := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
				if p = strings.Trim(p, "`\"'"); p != "" {
					n.Keep = append(n.Keep, p)
				}
			}
		case "RESET":
			if strings.EqualFold(strings.Trim(strings.TrimSpace(val), "`*"), "true") {
				n.Reset = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("read %s: %w", path, err)
	}
	return n, nil
}

// FindNotes reads the first default notes file that exists under root. A
// root without one gives empty Notes and no error.
func FindNotes(root string) (Notes, error) {
	for _, rel := range DefaultNotes {
		p := filepath.Join(root, rel)
		n, err := ReadNotes(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		return n, err
	}
	return Notes{}, nil
}

// ResolveKeep makes kept paths absolute: relative ones are taken against
// root, the session's identity root.
func ResolveKeep(paths []string, root string) []string {
	var out []string
	for _, p := range paths {
		if strings.HasPrefix(p, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(h, p[2:])
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

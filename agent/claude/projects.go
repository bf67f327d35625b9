package claude

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/tether-dev/tether/agent/jsonl"
	"github.com/tether-dev/tether/identity"
)

// maxProjectName is where Claude Code 2.1 cuts a project-directory name and
// appends a hash (base 36 of the 31-multiplier string hash of the path, as
// observed from 2.1.332). Claude Code 2.0 writes the whole name instead. The
// hash is not part of any contract, so long names are matched by their
// prefix (or as the whole name) rather than by recomputing it.
const maxProjectName = 200

// ProjectDirName returns the name Claude Code gives the project directory of
// a session started in path: every UTF-16 code unit outside [A-Za-z0-9]
// becomes "-". A name over 200 characters is cut to 200 and gets "-<hash>"
// appended, as the current CLI does; long is then true, and callers should
// match directories with MatchesProjectDir, since other CLI builds hash
// differently or do not cut at all.
func ProjectDirName(path string) (name string, long bool) {
	full := encodeProjectName(path)
	if len(full) > maxProjectName {
		return full[:maxProjectName] + "-" + pathHash36(path), true
	}
	return full, false
}

// pathHash36 is base 36 of the absolute value of the 31-multiplier hash of
// path's UTF-16 code units, wrapped to 32 bits.
func pathHash36(path string) string {
	var h int32
	for _, u := range utf16.Encode([]rune(path)) {
		h = 31*h + int32(u)
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	return strconv.FormatInt(v, 36)
}

func encodeProjectName(path string) string {
	var b strings.Builder
	for _, r := range path {
		switch {
		case r < 0x80 && isAlnum(byte(r)):
			b.WriteByte(byte(r))
		case r > 0xFFFF:
			// A surrogate pair is two code units, so two dashes.
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// MatchesProjectDir reports whether dirName is a project directory Claude
// Code would use for path: the exact name, or for a long path the
// 200-character prefix with any hash suffix, or the whole uncut name
// (Claude Code 2.0).
func MatchesProjectDir(dirName, path string) bool {
	full := encodeProjectName(path)
	if len(full) <= maxProjectName || dirName == full {
		return dirName == full
	}
	prefix := full[:maxProjectName]
	return strings.HasPrefix(dirName, prefix+"-") && len(dirName) > len(prefix)+1 && !strings.Contains(dirName[len(prefix)+1:], "-")
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Match kinds of a ProjectDir, strongest first.
const (
	MatchExact    = "exact"        // the name of the canonical root
	MatchSpelling = "spelling"     // the name of another spelling (raw path, symlink, trailing slash)
	MatchRecorded = "recorded-cwd" // sessions inside record a cwd with the same root
)

// ProjectDir is a Claude Code project directory that holds (or would hold)
// sessions for a root.
type ProjectDir struct {
	Name     string   `json:"name"`
	Path     string   `json:"path"`
	Match    string   `json:"match"`
	Sessions []string `json:"sessions"`
	// Cwds are the distinct recorded cwds of those sessions, as written.
	Cwds []string `json:"cwds,omitempty"`
}

// FindProjectDirs lists every directory under projectsDir (Claude Code's
// <config>/projects) that holds sessions for root: the directory of the
// canonical name, those of the other known spellings, and any other
// directory whose sessions recorded a cwd that resolves to the same root
// (stranded by a symlink, a trailing slash or an older encoding). The exact
// directory is listed first, even when it does not exist yet, so callers can
// say so. A missing projectsDir is not an error.
func FindProjectDirs(projectsDir string, root identity.Root) ([]ProjectDir, error) {
	exactName, _ := ProjectDirName(root.Path)
	entries, err := os.ReadDir(projectsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	resolved := map[string]string{}
	sameRoot := func(cwd string) bool {
		p, ok := resolved[cwd]
		if !ok {
			p = identity.Resolve(cwd).Path
			resolved[cwd] = p
		}
		return p == root.Path
	}

	spellings := root.Spellings()
	var out []ProjectDir
	foundExact := false
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		match := ""
		for _, sp := range spellings {
			if MatchesProjectDir(e.Name(), sp) {
				match = MatchSpelling
				if sp == root.Path {
					match = MatchExact
				}
				break
			}
		}
		pd := ProjectDir{Name: e.Name(), Path: filepath.Join(projectsDir, e.Name()), Match: match}
		cwdSeen := map[string]bool{}
		for _, f := range sessionFiles(pd.Path) {
			cwd := RecordedCwd(f)
			belongs := false
			if cwd == "" {
				// Empty or unreadable transcripts belong where their name
				// says; there is nothing else to go by.
				belongs = match != ""
			} else {
				belongs = sameRoot(cwd)
			}
			if !belongs {
				continue
			}
			pd.Sessions = append(pd.Sessions, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
			if cwd != "" && !cwdSeen[cwd] {
				cwdSeen[cwd] = true
				pd.Cwds = append(pd.Cwds, cwd)
			}
		}
		if pd.Match == "" {
			if len(pd.Sessions) == 0 {
				continue
			}
			pd.Match = MatchRecorded
		}
		if pd.Match == MatchExact {
			foundExact = true
		}
		out = append(out, pd)
	}
	if !foundExact {
		out = append(out, ProjectDir{Name: exactName, Path: filepath.Join(projectsDir, exactName), Match: MatchExact})
	}
	rank := map[string]int{MatchExact: 0, MatchSpelling: 1, MatchRecorded: 2}
	sort.SliceStable(out, func(i, j int) bool {
		if rank[out[i].Match] != rank[out[j].Match] {
			return rank[out[i].Match] < rank[out[j].Match]
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// sessionFiles lists the session transcripts directly inside a project
// directory. Claude Code 2.0.x kept subagent transcripts beside them as
// agent-<id>.jsonl; those are not sessions.
func sessionFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".jsonl") && !strings.HasPrefix(n, "agent-") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// RecordedCwd returns the cwd recorded by the first record of a transcript
// that carries one, reading at most the first 64 KiB. It returns "" when
// there is none (empty, unreadable or unfamiliar file).
func RecordedCwd(path string) string {
	cwd, _ := Head(path)
	return cwd
}

// Head reads the first 64 KiB of a transcript: the cwd the first record
// carrying one recorded, and whether any line is a JSON object at all.
func Head(path string) (cwd string, valid bool) { return jsonl.FirstString(path, KeyCwd) }

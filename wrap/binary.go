package wrap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FindBinary locates the real program called name. An explicit override
// (TETHER_CLAUDE_BIN, TETHER_CODEX_BIN) wins; otherwise PATH is walked and
// every candidate that is tether itself (the same file through a symlink or a
// hard link, or anything in skipDirs such as the shims directory) is
// skipped, so a shim named claude never runs itself, and so is any
// install's shim (IsShim): two installs' shims on PATH would otherwise
// run each other for ever.
func FindBinary(name string, getenv func(string) string, self string, skipDirs []string) (string, error) {
	if v := getenv("TETHER_" + strings.ToUpper(name) + "_BIN"); v != "" {
		if !isExecutable(v) {
			return "", fmt.Errorf("TETHER_%s_BIN=%s is not an executable file", strings.ToUpper(name), v)
		}
		return v, nil
	}
	selfInfo := statResolved(self)
	skip := map[string]bool{}
	for _, d := range skipDirs {
		if d != "" {
			skip[resolvedOr(d)] = true
		}
	}
	var searched []string
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		searched = append(searched, dir)
		if skip[resolvedOr(dir)] {
			continue
		}
		cand := filepath.Join(dir, name)
		if !isExecutable(cand) {
			continue
		}
		if selfInfo != nil {
			if ci := statResolved(cand); ci != nil && os.SameFile(ci, selfInfo) {
				continue
			}
		}
		if IsShim(cand) {
			continue
		}
		return cand, nil
	}
	return "", fmt.Errorf("the real %s is not on PATH (searched %s; tether itself skipped) — install it or set TETHER_%s_BIN",
		name, strings.Join(searched, ":"), strings.ToUpper(name))
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

func statResolved(p string) os.FileInfo {
	if p == "" {
		return nil
	}
	st, err := os.Stat(p) // follows symlinks; SameFile then catches hard links too
	if err != nil {
		return nil
	}
	return st
}

func resolvedOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// tetherNames are the names of tether's binaries, which a shim links to.
var tetherNames = map[string]bool{"tether": true, "tether-hot": true}

// IsShim reports whether path is a shim of some tether install: a
// symbolic link (through any chain of them) to a file named tether or
// tether-hot, the rule install.sh --shims and --uninstall go by.
func IsShim(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return false
	}
	target, err := filepath.EvalSymlinks(path)
	return err == nil && tetherNames[filepath.Base(target)]
}

// Package procfs reads what Linux's /proc says about processes: their
// argv, executable, working directory, environment, start time and open
// files. Everything it cannot read (another user's process, no /proc at
// all) reads as empty, never as an error: callers decide what the absence
// of evidence means. The root is injectable so tests can build a fake /proc.
//
// Only Linux has the machine's tree (procfs_linux.go); elsewhere
// (procfs_other.go: macOS) the zero FS reads nothing, Supported says so,
// and callers take their no-/proc paths. A Root set (a test's fake tree)
// is read on every OS.
package procfs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FS is a /proc tree; the zero value is the machine's /proc.
type FS struct{ Root string }

// Supported reports whether there is a tree to read: a Root, or the
// machine's /proc where the OS has one.
func (fs FS) Supported() bool { return fs.Root != "" || machineRoot != "" }

func (fs FS) path(elem ...string) string {
	root := fs.Root
	if root == "" {
		root = machineRoot
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

func (fs FS) pidPath(pid int, elem ...string) string {
	return fs.path(append([]string{strconv.Itoa(pid)}, elem...)...)
}

// Available reports whether the tree can be listed at all.
func (fs FS) Available() bool {
	if !fs.Supported() {
		return false
	}
	_, err := os.ReadDir(fs.path())
	return err == nil
}

// PIDs lists the processes.
func (fs FS) PIDs() []int {
	if !fs.Supported() {
		return nil
	}
	ents, err := os.ReadDir(fs.path())
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

// Argv is the process's command line. A process that rewrote its title
// (node's process.title) may show only the title, its arguments gone.
func (fs FS) Argv(pid int) []string {
	if !fs.Supported() {
		return nil
	}
	b, err := os.ReadFile(fs.pidPath(pid, "cmdline"))
	if err != nil {
		return nil
	}
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	var out []string
	for _, a := range strings.Split(string(b), "\x00") {
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

// Exe is the path of the process's executable ("" when unreadable).
func (fs FS) Exe(pid int) string {
	if !fs.Supported() {
		return ""
	}
	p, _ := os.Readlink(fs.pidPath(pid, "exe"))
	return p
}

// Cwd is the process's working directory ("" when unreadable).
func (fs FS) Cwd(pid int) string {
	if !fs.Supported() {
		return ""
	}
	p, _ := os.Readlink(fs.pidPath(pid, "cwd"))
	return p
}

// Env returns one variable of the process's initial environment.
func (fs FS) Env(pid int, key string) (string, bool) {
	if !fs.Supported() {
		return "", false
	}
	b, err := os.ReadFile(fs.pidPath(pid, "environ"))
	if err != nil {
		return "", false
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// clockTicks is USER_HZ, 100 on every Linux tether runs on.
const clockTicks = 100

// StartTime is when the process started (zero when unreadable).
func (fs FS) StartTime(pid int) time.Time {
	if !fs.Supported() {
		return time.Time{}
	}
	stat, err := os.ReadFile(fs.pidPath(pid, "stat"))
	if err != nil {
		return time.Time{}
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 { // starttime is field 22, the 20th after the name
		return time.Time{}
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	boot := fs.bootTime()
	if err != nil || boot.IsZero() {
		return time.Time{}
	}
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks)
}

func (fs FS) bootTime() time.Time {
	b, err := os.ReadFile(fs.path("stat"))
	if err != nil {
		return time.Time{}
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
}

// OpenFiles lists the paths of the files the process holds open.
func (fs FS) OpenFiles(pid int) []string {
	if !fs.Supported() {
		return nil
	}
	fdDir := fs.pidPath(pid, "fd")
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && strings.HasPrefix(target, "/") {
			out = append(out, target)
		}
	}
	return out
}

// OpenBy scans every process for any of paths held open and returns the
// pid for each path found. Processes it may not inspect are skipped.
func (fs FS) OpenBy(paths map[string]bool) map[string]int {
	out := map[string]int{}
	if len(paths) == 0 {
		return out
	}
	for _, pid := range fs.PIDs() {
		fdDir := fs.pidPath(pid, "fd")
		ents, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			target, err := os.Readlink(filepath.Join(fdDir, e.Name()))
			if err != nil || !paths[target] {
				continue
			}
			if _, seen := out[target]; !seen {
				out[target] = pid
			}
		}
	}
	return out
}

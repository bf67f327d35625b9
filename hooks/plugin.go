package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/agent"
	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/safeio"
)

// A plugin (agent.PluginInstaller) is one file tether owns whole, not
// entries in a file it shares: installing writes it, uninstalling removes
// it. Whose a file at that path is, is decided by its first line
// (agent.PluginMarker), never by its name: a user's file of the same name
// is never replaced or removed. Anything there that is not a regular
// file (a symbolic link, a FIFO, a directory) is refused untouched.

// PluginPerm is the plugin's mode: it holds no secret (the hook command's
// path), and the agent's other plugins are world-readable too.
const PluginPerm = 0o644

// PluginDirPerm is the mode of the directories install creates: the
// agent's own config directories are 0755, as it creates them.
const PluginDirPerm = 0o755

// ErrNotOurs is the error for a file at the plugin's path that tether
// did not write.
var ErrNotOurs = errors.New("is not tether's (no " + agent.PluginMarker + " on its first line)")

// Plugin is what is at a plugin's path.
type Plugin struct {
	Path   string
	Exists bool
	// Ours: its first line holds agent.PluginMarker.
	Ours bool
	// Command is the command it runs (an own plugin's).
	Command []string
	// Data is its content.
	Data []byte
}

// ReadPlugin reads what is at inst's plugin path. A path that is not a
// regular file (a symbolic link is not followed) is an error naming it.
func ReadPlugin(inst agent.PluginInstaller, path string) (Plugin, error) {
	p := Plugin{Path: path}
	data, err := safeio.ReadOwn(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil
	case err != nil:
		return p, err
	}
	p.Exists, p.Data = true, data
	first, _, _ := bytes.Cut(data, []byte("\n"))
	p.Ours = bytes.Contains(first, []byte(agent.PluginMarker))
	if p.Ours {
		p.Command = inst.PluginCommand(data)
	}
	return p, nil
}

// PluginPlan is what InstallPlugin or UninstallPlugin did (or would do).
type PluginPlan struct {
	// Action is "written" (a new file), "updated" (tether's, replaced),
	// "unchanged", "removed", or "absent" (nothing to remove).
	Action string
	// Created are the directories created for the file, deepest first.
	Created []string
	// Removed are the directories removed with it (created ones left
	// empty).
	Removed []string
}

// Changed reports whether the plan changes anything.
func (p PluginPlan) Changed() bool { return p.Action != "unchanged" && p.Action != "absent" }

// InstallPlugin writes content at path (atomically, PluginPerm),
// creating the missing directories (PluginDirPerm). A file there that is
// not tether's is refused (ErrNotOurs), as is one that is not a regular
// file. dryRun plans without writing.
func InstallPlugin(inst agent.PluginInstaller, path string, content []byte, dryRun bool) (PluginPlan, error) {
	var plan PluginPlan
	cur, err := ReadPlugin(inst, path)
	if err != nil {
		return plan, err
	}
	switch {
	case cur.Exists && !cur.Ours:
		return plan, fmt.Errorf("%s %w", path, ErrNotOurs)
	case cur.Exists && bytes.Equal(cur.Data, content):
		plan.Action = "unchanged"
		return plan, nil
	case cur.Exists:
		plan.Action = "updated"
	default:
		plan.Action = "written"
	}
	plan.Created = missingDirs(filepath.Dir(path))
	if dryRun {
		return plan, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), PluginDirPerm); err != nil {
		return plan, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.WriteBytes(path, content, atomicfile.Options{Perm: PluginPerm}); err != nil {
		return plan, fmt.Errorf("write %s: %w", path, err)
	}
	return plan, nil
}

// UninstallPlugin removes tether's plugin at path, and of created (the
// directories install recorded creating, deepest first) those left
// empty. A file there that is not tether's is left alone (ErrNotOurs).
func UninstallPlugin(inst agent.PluginInstaller, path string, created []string, dryRun bool) (PluginPlan, error) {
	plan := PluginPlan{Action: "absent"}
	cur, err := ReadPlugin(inst, path)
	switch {
	case err != nil:
		return plan, err
	case cur.Exists && !cur.Ours:
		return plan, fmt.Errorf("%s %w", path, ErrNotOurs)
	case !cur.Exists:
		return plan, nil
	}
	plan.Action = "removed"
	if dryRun {
		return plan, nil
	}
	if err := os.Remove(path); err != nil {
		return plan, fmt.Errorf("remove %s: %w", path, err)
	}
	for _, dir := range created {
		// Only an empty directory goes: anything the user (or the agent)
		// put there since keeps it.
		if os.Remove(dir) == nil {
			plan.Removed = append(plan.Removed, dir)
		}
	}
	return plan, nil
}

// missingDirs are dir and those of its parents that do not exist,
// deepest first.
func missingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

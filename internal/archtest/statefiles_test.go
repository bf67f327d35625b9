package archtest

import (
	"go/ast"
	"slices"
	"strings"
	"testing"
)

// stateFiles are the names of tether's own files in its state directory.
// Only state/ (state/files.go) spells them: everything else asks it for
// the path.
var stateFiles = []string{"events.jsonl", "windows.json", "bindings.json", "hooks-installed.json", "codex-trusted.json", "summarize.lock"}

// stateExempt may spell them: the owner, and the end-to-end suite, which
// checks the files a real install leaves.
var stateExempt = []string{"state/", "e2e/", "tools/"}

// stateFileLeaks returns "file: literal" for every string literal in f that
// is one of stateFiles or a path ending in one (a sentence naming a file,
// as a command's help does, is not a path and is not counted).
func stateFileLeaks(rel string, f *ast.File) []string {
	return literalLeaks(rel, f, func(v string) bool {
		return slices.ContainsFunc(stateFiles, func(name string) bool { return v == name || strings.HasSuffix(v, "/"+name) })
	})
}

func TestStateFilesOnlyInState(t *testing.T) {
	guard(t, stateExempt, stateFileLeaks, "tether state file named outside state/ (ask state for its path)")
}

// TestStateFileGuardCatchesALeak: the guard is not vacuous.
func TestStateFileGuardCatchesALeak(t *testing.T) {
	guardCatches(t, "package x\nimport \"path/filepath\"\nvar a = filepath.Join(\"/s\", \"windows.json\")\n"+
		"var b = \"see $XDG_STATE_HOME/tether/events.jsonl, oldest first\"\n", stateFileLeaks)
}

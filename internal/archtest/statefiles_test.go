package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// stateFiles are the names of tether's own files in its state directory.
// Only state/ (state/files.go) spells them: everything else asks it for
// the path.
var stateFiles = []string{"events.jsonl", "windows.json", "bindings.json", "hooks-installed.json", "codex-trusted.json", "summarize.lock"}

// stateExempt may spell them: the owner, and the end-to-end suite, which
// checks the files a real install leaves.
var stateExempt = []string{"state/", "e2e/", "internal/tools/"}

// stateFileLeaks returns "file: literal" for every string literal in f that
// is one of stateFiles or a path ending in one (a sentence naming a file,
// as a command's help does, is not a path and is not counted).
func stateFileLeaks(rel string, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, name := range stateFiles {
			if v == name || strings.HasSuffix(v, "/"+name) {
				out = append(out, rel+": "+lit.Value)
				break
			}
		}
		return true
	})
	return out
}

func TestStateFilesOnlyInState(t *testing.T) {
	for rel, f := range sourceFiles(t, parser.SkipObjectResolution) {
		if exempt(rel, stateExempt) {
			continue
		}
		for _, leak := range stateFileLeaks(rel, f) {
			t.Errorf("tether state file named outside state/ (ask state for its path): %s", leak)
		}
	}
}

// TestStateFileGuardCatchesALeak: the guard is not vacuous.
func TestStateFileGuardCatchesALeak(t *testing.T) {
	src := "package x\nimport \"path/filepath\"\nvar a = filepath.Join(\"/s\", \"windows.json\")\nvar b = \"see $XDG_STATE_HOME/tether/events.jsonl, oldest first\"\n"
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if leaks := stateFileLeaks("hooks/x.go", f); len(leaks) != 1 {
		t.Errorf("leaks %v, want one", leaks)
	}
}

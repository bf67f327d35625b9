// Package archtest guards the package layout: agent formats are spelled
// only in agent/, every package has a rank and imports only go down
// (docs/architecture.md is generated from the rank table), test kits are
// never linked into a shipped binary, and nothing compiled is tracked.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/tether-dev/tether/"

// formatKeys are keys and names of the agents' on-disk formats. Outside
// agent/ (and the test-only simulators) code asks agent/claude or
// agent/codex instead of spelling them.
var formatKeys = []string{
	"isApiErrorMessage", "cache_read_input_tokens", "compact_boundary", "isCompactSummary",
	"token_count", "custom-title", "ai-title", "last-prompt", "rollout-",
}

// formatExempt are the trees allowed to spell format keys: the owners and
// the simulators that write the formats for tests and benchmarks.
var formatExempt = []string{"agent/", "internal/testkit/", "tools/", "e2e/"}

// root is the module root (two levels up from this package).
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", r, err)
	}
	return r
}

// sourceFiles parses every non-test .go file of the module, keyed by its
// slash path relative to the root.
func sourceFiles(t *testing.T, mode parser.Mode) map[string]*ast.File {
	t.Helper()
	r := root(t)
	out := map[string]*ast.File{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != r && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r, path)
		out[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// formatLeaks returns "file: literal" for every string literal in f that
// holds a format key.
func formatLeaks(rel string, f *ast.File) []string {
	return literalLeaks(rel, f, func(v string) bool {
		return slices.ContainsFunc(formatKeys, func(k string) bool { return strings.Contains(v, k) })
	})
}

// literalLeaks returns "file: literal" for every string literal in f that
// match accepts. Struct tags are skipped: they name tether's own output
// fields and values (the catalog's title sources), not a format.
func literalLeaks(rel string, f *ast.File, match func(string) bool) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.Field); ok {
			return false
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			v = lit.Value
		}
		if match(v) {
			out = append(out, rel+": "+lit.Value)
		}
		return true
	})
	return out
}

// guard reports every leak in the module's source files outside the
// exempt trees.
func guard(t *testing.T, exemptTrees []string, leaks func(string, *ast.File) []string, what string) {
	t.Helper()
	for rel, f := range sourceFiles(t, parser.SkipObjectResolution) {
		if exempt(rel, exemptTrees) {
			continue
		}
		for _, leak := range leaks(rel, f) {
			t.Errorf("%s: %s", what, leak)
		}
	}
}

// guardCatches checks a guard is not vacuous: src (a file of package x)
// has exactly one leak.
func guardCatches(t *testing.T, src string, leaks func(string, *ast.File) []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := leaks("hooks/x.go", f); len(got) != 1 {
		t.Errorf("leaks %v, want one", got)
	}
}

func exempt(rel string, trees []string) bool {
	for _, p := range trees {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

func TestFormatKeysOnlyInAgent(t *testing.T) {
	guard(t, formatExempt, formatLeaks, "format key outside agent/ (ask agent/claude or agent/codex)")
}

// TestFormatGuardCatchesALeak: the guard is not vacuous.
func TestFormatGuardCatchesALeak(t *testing.T) {
	guardCatches(t, "package x\nfunc f(m map[string]any) any { return m[\"isApiErrorMessage\"] }\n", formatLeaks)
}

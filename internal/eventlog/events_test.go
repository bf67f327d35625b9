package eventlog

import (
	"errors"
	"flag"
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

	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite docs/lifecycle-log.md's event table from Events")

const readme = "../../docs/lifecycle-log.md"

// docs/lifecycle-log.md's event table is Events, exactly.
func TestDocsEventTable(t *testing.T) {
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- events:begin -->\n", "<!-- events:end -->"
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q block", readme, begin, end)
	}
	want := EventTable()
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(readme, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s: the event table differs from Events; run go test ./internal/eventlog -run TestDocsEventTable -update\n got:\n%s\nwant:\n%s", readme, got, want)
	}
}

func TestEventsAreUniqueAndDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Events() {
		if seen[e.Name] || e.Name == "" || e.Writer == "" {
			t.Errorf("duplicate or undescribed event %+v", e)
		}
		seen[e.Name] = true
		for _, f := range e.Fields {
			if slices.Contains([]string{KeyTime, KeyLevel, KeyEvent, KeySessionID, KeyHarness, KeyIdentityRoot}, f) {
				t.Errorf("%s lists the standard field %s", e.Name, f)
			}
		}
	}
	if _, ok := Lookup("trimmed"); ok {
		t.Error("the old automatic-trim name is back")
	}
}

// A manual and an automatic trim write one field set, the one Events
// lists.
func TestTrimFieldSets(t *testing.T) {
	keys := func(r Record) []string {
		var k []string
		r.Fields(func(key string, _ gjson.Result) { k = append(k, key) })
		return k
	}
	dir := t.TempDir()
	l := Open(Options{Path: filepath.Join(dir, "events.jsonl")})
	l.Info(Trim, "a", TrimDone{Source: SourceAuto, Percent: 95, Changed: true}.Attrs()...)
	l.Info(Trim, "m", TrimDone{Source: SourceManual, Changed: true}.Attrs()...)
	l.Warn(TrimFailed, "a", TrimFailedAttrs(SourceAuto, "/p", 95, errors.New("boom"))...)
	l.Warn(TrimFailed, "m", TrimFailedAttrs(SourceManual, "/p", 0, errors.New("boom"))...)
	var recs []Record
	if _, err := ReadAll(filepath.Join(dir, "events.jsonl"), func(r Record) { recs = append(recs, r) }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		e, _ := Lookup(r.Event)
		if got := keys(r); !slices.Equal(got, e.Fields) {
			t.Errorf("%s: fields %v, want %v", r.Event, got, e.Fields)
		}
		if err := Check(r); err != nil {
			t.Error(err)
		}
	}
	if err := Check(Record{Event: "trimmed", Raw: []byte(`{"event":"trimmed"}`)}); err == nil {
		t.Error("Check accepted an unknown event")
	}
	if err := Check(Record{Event: Trim, Raw: []byte(`{"event":"trim","bogus":1}`)}); err == nil {
		t.Error("Check accepted an unknown field")
	}
}

// Event names are written only through the constants: no lifecycle record
// in tether's code names its event with a string literal.
func TestNoLiteralEventNames(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !slices.Contains([]string{"Debug", "Info", "Warn", "Error"}, sel.Sel.Name) {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				if _, known := Lookup(name); known || isEventName(name) {
					t.Errorf("%s: event %s written as a string literal; use the eventlog constant", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isEventName is what a lifecycle event name looks like: lower case words
// joined by underscores (slog messages elsewhere are sentences).
func isEventName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz_") == ""
}

package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestModuleRootFromThePackage(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "scripts", "e2e-clis.sh")); err != nil {
		t.Errorf("root %s: %v", root, err)
	}
	p := Testdata(t, "codex-0.171.0", "golden-state_5.schema.sql")
	if want := filepath.Join(root, "testdata", "codex-0.171.0", "golden-state_5.schema.sql"); p != want {
		t.Errorf("Testdata = %s, want %s", p, want)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
}

// TestModuleRootSkipsOtherModules: run inside another module (a tool
// started from elsewhere), the root is still tether's, found from the
// source.
func TestModuleRootSkipsOtherModules(t *testing.T) {
	want, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(other, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	got, err := ModuleRoot()
	if _, file, _, _ := runtime.Caller(0); !filepath.IsAbs(file) {
		// Built with -trimpath (as ./test.sh builds): the source's
		// directory is unknown, so the root is not found, and never
		// taken from the other module.
		if err == nil {
			t.Errorf("ModuleRoot in another module, built with -trimpath = %q, want an error", got)
		}
	} else if err != nil || got != want {
		t.Errorf("ModuleRoot in another module = %q, %v; want %q", got, err, want)
	}
	if _, ok := moduleRootAbove(sub); ok {
		t.Errorf("moduleRootAbove(%s) took example.com/other for tether", sub)
	}
}

func TestDeclares(t *testing.T) {
	for in, want := range map[string]bool{
		"module github.com/tether-dev/tether\n":           true,
		"// x\nmodule \"github.com/tether-dev/tether\"\n": true,
		"module github.com/tether-dev/tether/v2\n":        false,
		"require github.com/tether-dev/tether v1.0.0\n":   false,
	} {
		if got := declares([]byte(in), modulePath); got != want {
			t.Errorf("declares(%q) = %v, want %v", in, got, want)
		}
	}
}

// upToTestdata is a path that climbs to the module's testdata/ from a
// package directory: "../testdata/…", "../../testdata", or the same
// through filepath.Join("..", "..", "testdata", …).
var upToTestdata = regexp.MustCompile(`"(\.\./)+testdata\b|"\.\."(\s*,\s*"\.\.")*\s*,\s*"testdata"`)

func TestUpToTestdataPattern(t *testing.T) {
	for in, want := range map[string]bool{
		`os.ReadFile("../testdata/samples/" + name)`:                         true,
		`"../../testdata/golden/x.jsonl"`:                                    true,
		`filepath.Join("..", "testdata", "golden")`:                          true,
		`filepath.Join("..", "..", "testdata", dir, name)`:                   true,
		`filepath.Join("testdata", "input-"+name)`:                           false,
		`testutil.Testdata(t, "codex-0.171.0", "golden-state_5.schema.sql")`: false,
		`d.Name() == "testdata"`:                                             false,
		`filepath.Join(root, "testdata", "codex-0.171.0")`:                   false,
	} {
		if got := upToTestdata.MatchString(in); got != want {
			t.Errorf("upToTestdata.MatchString(%s) = %v, want %v", in, got, want)
		}
	}
}

// TestNoRelativeTestdataPaths: tests name the module's test data through
// Testdata, not by climbing from their package directory (which breaks
// when a test moves to another package).
func TestNoRelativeTestdataPaths(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "testutil/testdata_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if upToTestdata.MatchString(line) {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d names testdata by a relative path; use testutil.Testdata: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package configfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/config"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMissingFileIsDefaults(t *testing.T) {
	cfg, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Level != "info" || cfg.Log.MaxSizeMB != 10 || cfg.Path != "" {
		t.Errorf("defaults: %+v", cfg)
	}
}

func TestLoadOverridesAndUnknownKeys(t *testing.T) {
	p := write(t, "[log]\nlevel = \"debug\"\n\n[future]\nthing = 1\nother = 2\n")
	cfg, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Log.Level != "debug" || cfg.Log.MaxSizeMB != 10 || cfg.Path != p {
		t.Errorf("cfg: %+v", cfg)
	}
	if len(cfg.Unknown) != 1 || cfg.Unknown[0] != "future" {
		t.Errorf("unknown: %v", cfg.Unknown)
	}
}

func TestMalformedNamesFileAndLine(t *testing.T) {
	p := write(t, "[log]\nlevel = \"debug\"\nmax_size_mb = = 3\n")
	_, err := Load(p)
	if err == nil {
		t.Fatal("want error")
	}
	msg := err.Error()
	if !strings.Contains(msg, p) || !strings.Contains(msg, "line 3") || strings.Contains(msg, "\n") {
		t.Errorf("error %q should name the file and line 3 on one line", msg)
	}
}

func TestInvalidValues(t *testing.T) {
	for _, body := range []string{"[log]\nlevel = \"loud\"\n", "[log]\nmax_size_mb = 0\n", "[log]\nlevel = 3\n"} {
		if _, err := Load(write(t, body)); err == nil || !strings.Contains(err.Error(), "config ") {
			t.Errorf("%q: err = %v", body, err)
		}
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir() // a directory cannot be read as a file, even by root
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("err = %v", err)
	}
}

func TestHooksSection(t *testing.T) {
	cfg, err := Load(write(t, "[hooks]\nself_report = true\n[hooks.windows]\n\"claude-sonnet-4-5\" = 1000000\n"))
	if err != nil || !cfg.Hooks.SelfReport || cfg.Hooks.Windows["claude-sonnet-4-5"] != 1_000_000 || cfg.Hooks.TailMaxKiB != 4096 {
		t.Errorf("%+v %v", cfg.Hooks, err)
	}
	for body, want := range map[string]string{
		"[hooks.windows]\nx = 5\n":    "too small",
		"[hooks]\ntail_max_kib = 1\n": "tail_max_kib",
	} {
		if _, err := Load(write(t, body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", body, err)
		}
	}
}

func TestCatalogWorkRefs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	cfg, err := Load(path)
	if err != nil || len(cfg.Catalog.WorkRefs) != 2 || cfg.Catalog.WorkRefs[0].Pattern != `\bINIT-[A-Z0-9]+-\d{3}\b` {
		t.Fatalf("defaults: %+v %v", cfg.Catalog, err)
	}
	os.WriteFile(path, []byte("[[catalog.work_refs]]\nname = \"JIRA\"\npattern = '\\bPROJ-\\d+\\b'\n"), 0o600)
	cfg, err = Load(path)
	if err != nil || len(cfg.Catalog.WorkRefs) != 1 || cfg.Catalog.WorkRefs[0].Name != "JIRA" {
		t.Fatalf("replace: %+v %v", cfg.Catalog, err)
	}
	os.WriteFile(path, []byte("[[catalog.work_refs]]\nname = \"bad\"\npattern = '(['\n"), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "catalog.work_refs[0]") {
		t.Fatalf("bad pattern: %v", err)
	}
}

func TestArchiveSection(t *testing.T) {
	cfg, err := Load(write(t, "[archive]\nenabled = false\nmode = \"copy\"\ndir = \"/mnt/keep\"\nspeed = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Archive.Enabled || cfg.Archive.Mode != "copy" || cfg.Archive.Dir != "/mnt/keep" {
		t.Errorf("archive: %+v", cfg.Archive)
	}
	if len(cfg.Unknown) != 1 || cfg.Unknown[0] != "archive.speed" {
		t.Errorf("unknown: %v", cfg.Unknown)
	}
	if d := config.Default().Archive; !d.Enabled || d.Mode != "link" {
		t.Errorf("default archive: %+v", d)
	}
	for _, body := range []string{"[archive]\nmode = \"move\"\n", "[archive]\ndir = \"rel/dir\"\n"} {
		if _, err := Load(write(t, body)); err == nil || !strings.Contains(err.Error(), "archive.") {
			t.Errorf("%q: err = %v", body, err)
		}
	}
}

// A FIFO named as the config file (issue 23, item 10) is an error naming
// it, at once: not a wait for a writer. Killed after a few seconds: a
// hang check, not a timing assertion.
func TestLoadFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(p); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO config: %v, want an error naming it", err)
		}
	case <-time.After(5 * time.Second):
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("Load blocks on a FIFO")
	}
}

// [catalog] columns: the column names, or +NAME additions to the default
// ones, checked as --columns checks them.
func TestCatalogColumns(t *testing.T) {
	cfg, err := Load(write(t, "[catalog]\ncolumns = [\"ID\", \"cost\", \"title\"]\n"))
	if err != nil || strings.Join(cfg.Catalog.Columns, ",") != "ID,cost,title" {
		t.Fatalf("columns: %q %v", cfg.Catalog.Columns, err)
	}
	if _, err := Load(write(t, "[catalog]\ncolumns = [\"+cost\"]\n")); err != nil {
		t.Fatalf("+cost: %v", err)
	}
	for body, want := range map[string]string{
		"[catalog]\ncolumns = [\"id\", \"cots\"]\n":  `catalog.columns: unknown column "cots" — did you mean "cost"?`,
		"[catalog]\ncolumns = [\"id\", \"id\"]\n":    `catalog.columns: column "id" named twice`,
		"[catalog]\ncolumns = [\"id\", \"+cost\"]\n": "catalog.columns: either",
	} {
		p := write(t, body)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v, want %q and the file", body, err, want)
		}
	}
}

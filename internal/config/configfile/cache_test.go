package configfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tether-dev/tether/internal/config"
)

// What tether-hot reads (config.LoadCached over WriteCache's copy) is what
// Load returns, settings and errors alike, and an edited file is read
// again.
func TestLoadCachedAsLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	cache := filepath.Join(dir, "cache", config.CacheFile)
	refreshes := 0
	refresh := func() ([]byte, error) { refreshes++; return WriteCache(path, cache) }
	check := func(name string) {
		t.Helper()
		want, wantErr := Load(path)
		got, gotErr := config.LoadCached(path, cache, refresh)
		if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Errorf("%s: LoadCached = %+v, %v\nLoad = %+v, %v", name, got, gotErr, want, wantErr)
		}
	}
	check("no file")
	if refreshes != 0 {
		t.Fatalf("no file: %d refreshes", refreshes)
	}
	for name, body := range map[string]string{
		"full": "[log]\nlevel = \"debug\"\nmax_size_mb = 3\n[hooks]\nself_report = true\ntail_max_kib = 128\n[hooks.windows]\n\"claude-x\" = 500000\n" +
			"[prompt]\nformat = \"c {pct}\"\nwarn = 1.5\ncrit = 2.25\n[statusline]\nsegments = [\"model\", \"cost\"]\n[summarize]\ncommand = [\"a\", \"b c\"]\n" +
			"[[catalog.work_refs]]\nname = \"T\"\npattern = '\\bT-\\d+'\n[future]\nx = 1\n",
		"empty lists": "[statusline]\nsegments = []\n[catalog]\nwork_refs = [{name = \"A\", pattern = \"a\"}]\n",
		"syntax":      "[log\n",
		"invalid":     "[log]\nlevel = \"loud\"\n",
		"bad pattern": "[[catalog.work_refs]]\nname = \"T\"\npattern = \"(\"\n",
	} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		// A new ctime even within the file system's timestamp grain.
		os.Chtimes(path, time.Now(), time.Unix(int64(refreshes)+1, 0))
		before := refreshes
		check(name)
		check(name + ", cached")
		if refreshes != before+1 {
			t.Errorf("%s: %d refreshes, want 1", name, refreshes-before)
		}
	}
}

// Without tether to decode the file, the hot paths run on the defaults
// with an error that says why.
func TestLoadCachedWithoutTether(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("[log]\nlevel = \"debug\"\n"), 0o600)
	cfg, err := config.LoadCached(path, filepath.Join(dir, config.CacheFile), func() ([]byte, error) { return nil, errors.New("no tether") })
	if err == nil || err.Error() != "config "+path+": cannot read it without tether: no tether" || !reflect.DeepEqual(cfg, config.Default()) {
		t.Errorf("%+v, %v", cfg, err)
	}
}

// Where the copy cannot be written (the cache directory is a file), the
// one the refresh returns is used, every time.
func TestLoadCachedUnwritableCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("[log]\nlevel = \"debug\"\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "cache"), nil, 0o600)
	cache := filepath.Join(dir, "cache", config.CacheFile)
	for range 2 {
		cfg, err := config.LoadCached(path, cache, func() ([]byte, error) { return WriteCache(path, cache) })
		if err != nil || cfg.Log.Level != "debug" {
			t.Errorf("%+v, %v", cfg.Log, err)
		}
	}
	// A copy of another version of the file is not taken.
	stamp, _, _ := config.StampOf(path)
	stamp.Size++
	old := must(config.Encode(path, stamp, config.Default(), nil))
	cfg, err := config.LoadCached(path, cache, func() ([]byte, error) { return old, errors.New("cannot write") })
	if err == nil || cfg.Log.Level == "debug" {
		t.Errorf("another version's copy: %+v, %v", cfg.Log, err)
	}
}

// A copy of another file, or written for another shape of Config, is not
// read.
func TestLoadCachedRefusesOtherCopies(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	cache := filepath.Join(dir, config.CacheFile)
	os.WriteFile(path, []byte("[log]\nlevel = \"debug\"\n"), 0o600)
	stamp, _, _ := config.StampOf(path)
	other := config.Default()
	other.Log.Level = "error"
	for name, data := range map[string][]byte{
		"other path": must(config.Encode(path+".other", stamp, other, nil)),
		"schema":     []byte(`{"schema":"old","path":"` + path + `","config":{"Log":{"Level":"error"}}}`),
		"garbage":    []byte("{"),
	} {
		os.WriteFile(cache, data, 0o600)
		cfg, err := config.LoadCached(path, cache, func() ([]byte, error) { return WriteCache(path, cache) })
		if err != nil || cfg.Log.Level != "debug" {
			t.Errorf("%s: %+v, %v", name, cfg.Log, err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

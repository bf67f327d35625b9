package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"

	"github.com/tether-dev/tether/internal/rawfile"
)

// CacheFile is the decoded configuration tether-hot reads, in tether's
// cache directory: the result of configfile.Load (configuration or error)
// with the version of the file it came from. tether writes it
// (`tether config-cache`, which tether-hot runs when the copy is missing
// or the file changed), so the TOML file keeps one reader.
const CacheFile = "config.json"

// Cached is the content of CacheFile.
type Cached struct {
	// Schema is the shape of Config that wrote it (SchemaOf): a copy
	// written by another build is not read.
	Schema string `json:"schema"`
	Path   string `json:"path"`
	Stamp  Stamp  `json:"stamp"`
	Config Config `json:"config"`
	// Err is Load's error message ("" when none; Config is then the
	// defaults).
	Err string `json:"error,omitempty"`
}

// Stamp identifies one version of the file: any write changes its ctime,
// a replacement its inode.
type Stamp struct {
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	CtimeNs int64  `json:"ctime_ns"`
}

// StampOf stats path (through symbolic links). ok is false with a nil
// error when there is no file.
func StampOf(path string) (s Stamp, ok bool, err error) {
	var st syscall.Stat_t
	for {
		err = syscall.Stat(path, &st)
		if err != syscall.EINTR {
			break
		}
	}
	// The system call's own error: compared, not errors.Is, whose
	// interface assertions on a syscall.Errno build an itab at run time
	// (with the config file absent, at every start of tether-hot).
	if err == syscall.ENOENT {
		return Stamp{}, false, nil
	}
	if err != nil {
		return Stamp{}, false, err
	}
	return Stamp{Dev: st.Dev, Ino: st.Ino, Size: st.Size, MtimeNs: st.Mtim.Nano(), CtimeNs: st.Ctim.Nano()}, true, nil
}

// SchemaOf is Config's shape: every field's name and type, nested.
var SchemaOf = sync.OnceValue(func() string {
	var b strings.Builder
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		b.WriteString(t.String())
		if t.Kind() != reflect.Struct {
			return
		}
		b.WriteByte('{')
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			b.WriteString(f.Name + " ")
			walk(f.Type)
			b.WriteByte(';')
		}
		b.WriteByte('}')
	}
	walk(reflect.TypeOf(Config{}))
	return b.String()
})

// LoadCached is configfile.Load(path) as tether-hot gets it: the defaults
// when there is no file, else the copy in cachePath when it was made from
// the file as it is now. Otherwise refresh (which runs tether to write
// it) is called once and the copy it returns (tether prints what it
// wrote, or could not write in a read-only cache directory) is used, else
// the file read again.
func LoadCached(path, cachePath string, refresh func() ([]byte, error)) (Config, error) {
	var c Config
	err := LoadCachedTo(&c, path, cachePath, refresh)
	return c, err
}

// LoadCachedTo is LoadCached into *dst. Every start of tether-hot loads
// the config on its main goroutine's young stack: a Config (376 bytes)
// returned by value through each level took ~4 KiB of it.
func LoadCachedTo(dst *Config, path, cachePath string, refresh func() ([]byte, error)) error {
	stamp, ok, err := StampOf(path)
	if err != nil {
		setDefault(dst)
		return fmt.Errorf("config %s: %w", path, err)
	}
	if !ok {
		setDefault(dst)
		return nil
	}
	if ok, err := readCached(dst, cachePath, path, stamp); ok {
		return err
	}
	// The copy tether printed is what it wrote: the file is read again
	// only for a refresh that printed none.
	copied, rerr := refresh()
	if ok, err := decodeCached(dst, copied, path, stamp); ok {
		return err
	}
	if ok, err := readCached(dst, cachePath, path, stamp); ok {
		return err
	}
	if rerr == nil {
		rerr = errors.New("no decoded copy was written")
	}
	setDefault(dst)
	return fmt.Errorf("config %s: cannot read it without tether: %w", path, rerr)
}

// readCached reads cachePath into *dst: the config it holds, or the
// defaults and its error. ok is false (and *dst untouched) unless it is a
// copy of path at stamp written by this build.
//
//go:noinline
func readCached(dst *Config, cachePath, path string, stamp Stamp) (ok bool, err error) {
	data, err := rawfile.ReadFile(cachePath)
	if err != nil {
		return false, nil
	}
	return decodeCached(dst, data, path, stamp)
}

// decodeCached decodes a copy into *dst; ok and err as for readCached.
//
//go:noinline
func decodeCached(dst *Config, data []byte, path string, stamp Stamp) (ok bool, err error) {
	if len(data) == 0 {
		return false, nil
	}
	var c Cached
	if json.Unmarshal(data, &c) != nil || c.Schema != SchemaOf() || c.Path != path || c.Stamp != stamp {
		return false, nil
	}
	if c.Err != "" {
		setDefault(dst)
		return true, errors.New(c.Err)
	}
	*dst = c.Config
	return true, nil
}

// setDefault sets *dst to the defaults, from a frame of its own (they
// are built by value).
//
//go:noinline
func setDefault(dst *Config) { *dst = Default() }

// CachePath is CacheFile in tether's cache directory.
func CachePath(cacheDir string) string { return filepath.Join(cacheDir, CacheFile) }

// Encode is the content of CacheFile for load's result on path at stamp.
func Encode(path string, stamp Stamp, cfg Config, loadErr error) ([]byte, error) {
	c := Cached{Schema: SchemaOf(), Path: path, Stamp: stamp, Config: cfg}
	if loadErr != nil {
		c.Err = loadErr.Error()
	}
	return json.Marshal(c)
}

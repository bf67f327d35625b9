package configfile

import (
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/atomicfile"
	"github.com/tether-dev/tether/internal/config"
)

// WriteCache loads path and leaves the result, configuration or error,
// in cachePath for tether-hot (config.LoadCached). The file is stat-ed
// before it is read: a write in between leaves a copy stamped with the
// older version, which the next reader takes for out of date. Without a
// file there is nothing to write (tether-hot then uses the defaults).
// The copy is returned too, also when it could not be written: tether-hot
// then reads it from `tether config-cache`'s output.
func WriteCache(path, cachePath string) ([]byte, error) {
	stamp, ok, err := config.StampOf(path)
	if err != nil || !ok {
		return nil, err
	}
	cfg, loadErr := Load(path)
	data, err := config.Encode(path, stamp, cfg, loadErr)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cachePath), 0o700); err != nil {
		return data, err
	}
	return data, atomicfile.WriteBytes(cachePath, data, atomicfile.Options{Perm: 0o600})
}

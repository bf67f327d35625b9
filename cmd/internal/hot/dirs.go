package hot

import (
	"github.com/tether-dev/tether/internal/locations"
	"github.com/tether-dev/tether/internal/safeio"
)

// UnsafeDir is the first of tether's directories (locations.OwnDirs)
// that someone other than the user owns or may write to, as
// safeio.CheckDir says; nil when none. Such a directory is neither read
// nor written: the hot paths then do nothing (a hook exits 0, a prompt or
// a statusLine prints nothing), every other command fails with this
// error, and doctor says which directory and why. The config file's
// directory is among them, so the config is read only when it passed.
// An archive directory the config names elsewhere is checked where the
// archive is opened (ArchiveStore).
func UnsafeDir(loc locations.Locations) error {
	for _, dir := range loc.OwnDirs() {
		if err := safeio.CheckDir(dir); err != nil {
			return err
		}
	}
	return nil
}

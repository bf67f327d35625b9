//go:build !linux

package state

import "errors"

// exchange has no one-step swap here: replaceNoSync renames instead.
func exchange(a, b string) error { return errors.ErrUnsupported }
